/**
 * The sealed note (PROTOCOL.md section 8): what the sender tells the recipient, and nobody else,
 * about a payment. The 76-byte plaintext
 *
 *     tx_hash (32) || amount (32, uint256 big-endian) || chain_id (8, u64 big-endian) || 0x00000000
 *
 * (an all-zero field means absent) is sealed with AES-256-GCM under a key and nonce derived from
 * the payment's shared secret `K`, compatible with SPECTER v2's on-chain metadata:
 *
 *     key   = SHAKE256("SPECTER_META_ENC_KEY_V1"   || K)[0..32]   -- no length prefix, unlike H
 *     nonce = SHAKE256("SPECTER_META_ENC_NONCE_V1" || K)[0..12]
 *
 * `K` is fresh for every encapsulation, so a key and nonce are never reused. On chain the note
 * follows the view tag in the ERC-5564 `metadata` (section 7): 1 + 92 bytes.
 * @module
 */
import { gcm } from '@noble/ciphers/aes.js';
import { shake256 } from '@noble/hashes/sha3.js';
import { bytesToHex, toBytes, type BytesInput } from './bytes.ts';
import { InvalidArgumentError } from './errors.ts';
import { SHARED_SECRET_BYTES } from './viewing-key.ts';

/** Plaintext of a note: tx_hash (32) + amount (32) + chain_id (8) + 4 zero bytes. */
export const NOTE_PLAINTEXT_BYTES = 76;
/** A sealed note: the plaintext's length plus the 16-byte GCM tag. */
export const SEALED_NOTE_BYTES = 92;
/** ERC-5564 metadata of an announcement with a note: the view tag, then the sealed note. */
export const ANNOUNCEMENT_METADATA_BYTES = 1 + SEALED_NOTE_BYTES;

const KEY_DOMAIN = new TextEncoder().encode('SPECTER_META_ENC_KEY_V1');
const NONCE_DOMAIN = new TextEncoder().encode('SPECTER_META_ENC_NONCE_V1');
const U256_LIMIT = 1n << 256n;
const U64_LIMIT = 1n << 64n;

/** An opened note; `null` fields were absent (zero). */
export type PaymentNote = {
  /** The paying transaction when it differs from the announcing one: `0x` + 64 lowercase hex. */
  txHash: `0x${string}` | null;
  /** Amount in base units (wei, or the token's smallest unit). */
  amount: bigint | null;
  /** EIP-155 id of the chain that holds the funds. */
  chainId: bigint | null;
};

/** What a sender may put in a note; every field is optional (absent is sealed as zero). */
export type PaymentNoteInput = {
  /** 32 bytes (hex or bytes). */
  txHash?: BytesInput | null;
  /** Base units, below 2^256 (a bigint, a safe integer or a decimal string). */
  amount?: bigint | number | string | null;
  /** EIP-155 chain id, below 2^64. */
  chainId?: bigint | number | string | null;
};

function cipherFor(sharedSecret: Uint8Array) {
  const K = toBytes(sharedSecret, 'sharedSecret', SHARED_SECRET_BYTES);
  const key = shake256.create({ dkLen: 32 }).update(KEY_DOMAIN).update(K).digest();
  const nonce = shake256.create({ dkLen: 12 }).update(NONCE_DOMAIN).update(K).digest();
  return gcm(key, nonce);
}

function unsigned(value: bigint | number | string | null | undefined, limit: bigint, path: string): bigint {
  if (value === null || value === undefined) return 0n;
  let parsed: bigint;
  if (typeof value === 'bigint') parsed = value;
  else if (typeof value === 'number' && Number.isSafeInteger(value)) parsed = BigInt(value);
  else if (typeof value === 'string' && /^\d{1,78}$/.test(value.trim())) parsed = BigInt(value.trim());
  else throw new InvalidArgumentError(path, 'must be a non-negative integer (bigint, safe integer or decimal string)');
  if (parsed < 0n || parsed >= limit) throw new InvalidArgumentError(path, `must be at least 0 and below 2^${limit === U64_LIMIT ? 64 : 256}`);
  return parsed;
}

function writeBigEndian(out: Uint8Array, at: number, length: number, value: bigint): void {
  for (let i = length - 1; i >= 0; i--) {
    out[at + i] = Number(value & 0xffn);
    value >>= 8n;
  }
}

function readBigEndian(bytes: Uint8Array, at: number, length: number): bigint {
  let value = 0n;
  for (let i = 0; i < length; i++) value = (value << 8n) | BigInt(bytes[at + i]!);
  return value;
}

function transactionHash(value: BytesInput): Uint8Array {
  let bytes: Uint8Array;
  try {
    bytes = toBytes(value, 'note.txHash');
  } catch {
    throw new InvalidArgumentError('note.txHash', 'must be 32 bytes or their hex');
  }
  if (bytes.length !== 32) throw new InvalidArgumentError('note.txHash', 'must be 32 bytes or their hex');
  return bytes;
}

/** The 76-byte plaintext of a note (PROTOCOL.md section 8). */
export function encodeNote(note: PaymentNoteInput = {}): Uint8Array {
  if (typeof note !== 'object' || note === null) throw new InvalidArgumentError('note', 'must be an object');
  const out = new Uint8Array(NOTE_PLAINTEXT_BYTES);
  if (note.txHash !== null && note.txHash !== undefined) out.set(transactionHash(note.txHash), 0);
  writeBigEndian(out, 32, 32, unsigned(note.amount, U256_LIMIT, 'note.amount'));
  writeBigEndian(out, 64, 8, unsigned(note.chainId, U64_LIMIT, 'note.chainId'));
  return out;
}

/**
 * Seal a note for the recipient of the payment whose shared secret is `sharedSecret`.
 * @returns 92 bytes: ciphertext and tag.
 * @example
 * const payment = createStealthPayment(metaAddress);
 * const sealed = sealNote(payment.sharedSecret, { amount: 10n ** 18n, chainId: 1n });
 */
export function sealNote(sharedSecret: Uint8Array, note: PaymentNoteInput = {}): Uint8Array {
  return cipherFor(sharedSecret).encrypt(encodeNote(note));
}

/**
 * Open a sealed note with the payment's shared secret (a scanner has it after a discovery).
 * @returns the note, or null when `sealed` is not a 92-byte note sealed under this secret (wrong
 * length, failed authentication, non-zero reserved bytes): the note is advisory, the chain's
 * balances are the truth.
 * @throws {InvalidHexError} when `sharedSecret` is not 32 bytes.
 */
export function openNote(sharedSecret: Uint8Array, sealed: Uint8Array): PaymentNote | null {
  // A malformed secret is the caller's mistake (a typed error), a malformed note the sender's (null).
  const cipher = cipherFor(sharedSecret);
  if (!(sealed instanceof Uint8Array) || sealed.length !== SEALED_NOTE_BYTES) return null;
  let plain: Uint8Array;
  try {
    plain = cipher.decrypt(sealed);
  } catch {
    return null;
  }
  if (plain[72] !== 0 || plain[73] !== 0 || plain[74] !== 0 || plain[75] !== 0) return null;
  const tx = plain.subarray(0, 32);
  const amount = readBigEndian(plain, 32, 32);
  const chainId = readBigEndian(plain, 64, 8);
  return {
    txHash: tx.some((b) => b !== 0) ? `0x${bytesToHex(tx)}` : null,
    amount: amount === 0n ? null : amount,
    chainId: chainId === 0n ? null : chainId,
  };
}

/**
 * The ERC-5564 `metadata` of a payment (PROTOCOL.md section 7): its view tag, followed by the
 * sealed note when `note` is given (93 bytes), else (undefined or null) the view tag alone (1 byte).
 * @example
 * const metadata = announcementMetadata(payment, { amount: 5n * 10n ** 17n, chainId: 1n });
 */
export function announcementMetadata(payment: { viewTag: number; sharedSecret: Uint8Array }, note?: PaymentNoteInput | null): Uint8Array {
  if (typeof payment !== 'object' || payment === null) throw new InvalidArgumentError('payment', 'must be an object with viewTag and sharedSecret');
  const { viewTag } = payment;
  if (!Number.isInteger(viewTag) || viewTag < 0 || viewTag > 255) throw new InvalidArgumentError('payment.viewTag', 'must be an integer 0..255');
  if (note === undefined || note === null) return Uint8Array.of(viewTag);
  const out = new Uint8Array(ANNOUNCEMENT_METADATA_BYTES);
  out[0] = viewTag;
  out.set(sealNote(payment.sharedSecret, note), 1);
  return out;
}
