/**
 * The sealed note (PROTOCOL.md section 8 and 8.1): what the sender tells the recipient, and nobody
 * else, about a payment. Two plaintexts, told apart by their length:
 *
 *     version 0 (76 bytes): tx_hash (32) || amount (32) || chain_id (8) || 0x00000000
 *     version 1 (96 bytes): tx_hash (32) || amount (32) || chain_id (8) || 0x00000001 || token (20)
 *
 * (amount a uint256 and chain_id a u64, big-endian; an all-zero field means absent; `token` the
 * ERC-20 contract paid, 20 zero bytes for the chain's native coin). Version 1 names the asset, so a
 * wallet can show "100 USDC" without reading the paying transaction: senders write it whenever the
 * payment names its asset (section 8.1 "SHOULD"), and recipients open both. Either is sealed with
 * AES-256-GCM under a key and nonce derived from the payment's shared secret `K`, compatible with
 * SPECTER v2's on-chain metadata:
 *
 *     key   = SHAKE256("SPECTER_META_ENC_KEY_V1"   || K)[0..32]   -- no length prefix, unlike H
 *     nonce = SHAKE256("SPECTER_META_ENC_NONCE_V1" || K)[0..12]
 *
 * `K` is fresh for every encapsulation, so a key and nonce are never reused. On chain the note
 * follows the view tag in the ERC-5564 `metadata` (section 7): 1 + 92 or 1 + 112 bytes.
 * @module
 */
import { gcm } from '@noble/ciphers/aes.js';
import { shake256 } from '@noble/hashes/sha3.js';
import { checksumAddressOfBytes } from './address.ts';
import { bytesToHex, isAllZero, toBytes, type BytesInput } from './bytes.ts';
import { InvalidArgumentError } from './errors.ts';
import { SHARED_SECRET_BYTES } from './viewing-key.ts';

/** Plaintext of a version-0 note: tx_hash (32) + amount (32) + chain_id (8) + version 0 (4). */
export const NOTE_PLAINTEXT_BYTES = 76;
/** A sealed version-0 note: the plaintext's length plus the 16-byte GCM tag. */
export const SEALED_NOTE_BYTES = 92;
/** ERC-5564 metadata of an announcement with a version-0 note: the view tag, then the sealed note. */
export const ANNOUNCEMENT_METADATA_BYTES = 1 + SEALED_NOTE_BYTES;
/** Plaintext of a version-1 note, which names its asset (PROTOCOL.md 8.1): version 0's fields, version 1, token (20). */
export const NOTE_V1_PLAINTEXT_BYTES = 96;
/** A sealed version-1 note: 96 + 16 bytes. */
export const SEALED_NOTE_V1_BYTES = 112;
/** ERC-5564 metadata of an announcement with a version-1 note: 1 + 112 bytes. */
export const ANNOUNCEMENT_METADATA_V1_BYTES = 1 + SEALED_NOTE_V1_BYTES;

const KEY_DOMAIN = new TextEncoder().encode('SPECTER_META_ENC_KEY_V1');
const NONCE_DOMAIN = new TextEncoder().encode('SPECTER_META_ENC_NONCE_V1');
const U256_LIMIT = 1n << 256n;
const U64_LIMIT = 1n << 64n;
/** Where the version field and the token sit in a plaintext. */
const VERSION_AT = 72;
const TOKEN_AT = 76;

/**
 * The asset a version-1 note names: `'coin'` for the chain's native coin (20 zero bytes on the
 * wire), else the ERC-20 contract's EIP-55 address.
 */
export type NoteToken = 'coin' | `0x${string}`;

/** An opened note; `null` fields were absent (zero). */
export type PaymentNote = {
  /** The paying transaction when it differs from the announcing one: `0x` + 64 lowercase hex. */
  txHash: `0x${string}` | null;
  /** Amount in base units (wei, or the token's smallest unit). */
  amount: bigint | null;
  /** EIP-155 id of the chain that holds the funds. */
  chainId: bigint | null;
  /**
   * What was paid, as the sender claims it (PROTOCOL.md 8.1): `'coin'`, a token's EIP-55 address,
   * or null for a version-0 note, which does not say. Name a token by a list the app ships or by
   * reading its contract, never by trusting the note; the chain's balances are the truth.
   */
  token: NoteToken | null;
};

/** What a sender may put in a note; every field is optional (absent is sealed as zero). */
export type PaymentNoteInput = {
  /** 32 bytes (hex or bytes). */
  txHash?: BytesInput | null;
  /** Base units, below 2^256 (a bigint, a safe integer or a decimal string). */
  amount?: bigint | number | string | null;
  /** EIP-155 chain id, below 2^64. */
  chainId?: bigint | number | string | null;
  /**
   * The asset paid: `'coin'` (or the zero address) for the chain's native coin, else the ERC-20
   * contract (20 bytes, hex or bytes). Given, the note is sealed as version 1 (PROTOCOL.md 8.1,
   * what senders should write); omitted or null, as version 0, which names no asset.
   */
  token?: 'coin' | BytesInput | null;
};

/** Reading the note an announcement carries: whether there was one, and what it said. */
export type NoteReading = {
  /** `'unreadable'`: it failed authentication, or its bytes cannot be a note. */
  noteStatus: 'absent' | 'opened' | 'unreadable';
  /** The opened note when `noteStatus` is `'opened'`, else null. */
  note: PaymentNote | null;
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

function tokenBytes(value: 'coin' | BytesInput): Uint8Array {
  if (value === 'coin') return new Uint8Array(20);
  let bytes: Uint8Array;
  try {
    bytes = toBytes(value, 'note.token');
  } catch {
    bytes = new Uint8Array(0);
  }
  if (bytes.length !== 20) throw new InvalidArgumentError('note.token', "must be 'coin' or a token contract's 20-byte address (hex or bytes)");
  return bytes;
}

/**
 * The plaintext of a note: 96 bytes of version 1 when it names its token (PROTOCOL.md 8.1), else
 * the 76 bytes of version 0 (section 8).
 */
export function encodeNote(note: PaymentNoteInput = {}): Uint8Array {
  if (typeof note !== 'object' || note === null) throw new InvalidArgumentError('note', 'must be an object');
  const token = note.token === null || note.token === undefined ? null : tokenBytes(note.token);
  const out = new Uint8Array(token === null ? NOTE_PLAINTEXT_BYTES : NOTE_V1_PLAINTEXT_BYTES);
  if (note.txHash !== null && note.txHash !== undefined) out.set(transactionHash(note.txHash), 0);
  writeBigEndian(out, 32, 32, unsigned(note.amount, U256_LIMIT, 'note.amount'));
  writeBigEndian(out, 64, 8, unsigned(note.chainId, U64_LIMIT, 'note.chainId'));
  if (token !== null) {
    out[VERSION_AT + 3] = 1;
    out.set(token, TOKEN_AT);
  }
  return out;
}

/**
 * Seal a note for the recipient of the payment whose shared secret is `sharedSecret`.
 * @returns 112 bytes (version 1) when the note names its `token`, else 92 (version 0): ciphertext and tag.
 * @example
 * const payment = createStealthPayment(metaAddress);
 * const sealed = sealNote(payment.sharedSecret, { amount: 10n ** 18n, chainId: 1n, token: 'coin' });
 */
export function sealNote(sharedSecret: Uint8Array, note: PaymentNoteInput = {}): Uint8Array {
  return cipherFor(sharedSecret).encrypt(encodeNote(note));
}

/** Whether `length` bytes can be a sealed note of either version (92 or 112). */
export const isSealedNoteLength = (length: number): boolean => length === SEALED_NOTE_BYTES || length === SEALED_NOTE_V1_BYTES;

/**
 * Open a sealed note with the payment's shared secret (a scanner has it after a discovery). Its
 * length says its version (92 bytes: 0, 112: 1), and the version field must agree (PROTOCOL.md 8.1).
 * @returns the note, or null when `sealed` is not a note sealed under this secret (wrong length,
 * failed authentication, a version field its length does not allow): the note is advisory, the
 * chain's balances are the truth.
 * @throws {InvalidHexError} when `sharedSecret` is not 32 bytes.
 * @example
 * const note = openNote(discovery.sharedSecret, sealed); // { txHash, amount: 100000000n, chainId: 8453n, token: '0x8335…2913' }
 */
export function openNote(sharedSecret: Uint8Array, sealed: Uint8Array): PaymentNote | null {
  // A malformed secret is the caller's mistake (a typed error), a malformed note the sender's (null).
  const cipher = cipherFor(sharedSecret);
  if (!(sealed instanceof Uint8Array) || !isSealedNoteLength(sealed.length)) return null;
  let plain: Uint8Array;
  try {
    plain = cipher.decrypt(sealed);
  } catch {
    return null;
  }
  const version = readBigEndian(plain, VERSION_AT, 4);
  if (version !== (plain.length === NOTE_PLAINTEXT_BYTES ? 0n : 1n)) return null;
  const tx = plain.subarray(0, 32);
  const amount = readBigEndian(plain, 32, 32);
  const chainId = readBigEndian(plain, 64, 8);
  return {
    txHash: tx.some((b) => b !== 0) ? `0x${bytesToHex(tx)}` : null,
    amount: amount === 0n ? null : amount,
    chainId: chainId === 0n ? null : chainId,
    token: version === 0n ? null : isAllZero(plain.subarray(TOKEN_AT)) ? 'coin' : (checksumAddressOfBytes(plain, TOKEN_AT) as `0x${string}`),
  };
}

/**
 * Open the note an announcement carries: `undefined` when it carries none, `null` when what it
 * carries cannot be a note, else its sealed bytes. Scanners report the result beside the payment,
 * which is a discovery whatever the note says (PROTOCOL.md section 8: the note is advisory).
 */
export function readNote(sharedSecret: Uint8Array, sealed: Uint8Array | null | undefined): NoteReading {
  if (sealed === undefined) return { noteStatus: 'absent', note: null };
  const note = sealed === null ? null : openNote(sharedSecret, sealed);
  return { noteStatus: note === null ? 'unreadable' : 'opened', note };
}

/**
 * The ERC-5564 `metadata` of a payment (PROTOCOL.md section 7): its view tag, followed by the
 * sealed note when `note` is given (113 bytes when it names its `token`, version 1; else 93),
 * else (undefined or null) the view tag alone (1 byte).
 * @example
 * const metadata = announcementMetadata(payment, { amount: 5n * 10n ** 17n, chainId: 1n, token: 'coin' }); // 113 bytes
 */
export function announcementMetadata(payment: { viewTag: number; sharedSecret: Uint8Array }, note?: PaymentNoteInput | null): Uint8Array {
  if (typeof payment !== 'object' || payment === null) throw new InvalidArgumentError('payment', 'must be an object with viewTag and sharedSecret');
  const { viewTag } = payment;
  if (!Number.isInteger(viewTag) || viewTag < 0 || viewTag > 255) throw new InvalidArgumentError('payment.viewTag', 'must be an integer 0..255');
  if (note === undefined || note === null) return Uint8Array.of(viewTag);
  const sealed = sealNote(payment.sharedSecret, note);
  const out = new Uint8Array(1 + sealed.length);
  out[0] = viewTag;
  out.set(sealed, 1);
  return out;
}
