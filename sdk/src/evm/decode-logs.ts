/**
 * Decoding `Announcement` logs into announcements of this wire format (PROTOCOL.md section 7)
 * and of ERC-8441 (scheme 3, section 10).
 *
 * The Announcer accepts anything, so a log is only an announcement when it comes from the
 * configured Announcer, carries one of the configured scheme ids and decodes as
 * `(bytes ephemeralPubKey, bytes metadata)`, and then by its scheme:
 * - this format (scheme 1000 unless configured otherwise): `ephemeralPubKey` exactly 1088 bytes
 *   and not all zero, `metadata` 1 byte (view tag), 93 bytes (view tag + 92-byte sealed note) or
 *   113 bytes (view tag + the 112-byte note that names its asset, section 8.1);
 * - ERC-8441 (scheme 3): `ephemeralPubKey` exactly 1121 bytes whose first 33 are a compressed
 *   secp256k1 point (`epk`), `metadata` at least the view tag; what follows it is kept as it is
 *   (the ERC's Section 2.7: its length is never a reason to skip).
 * Everything else is skipped and counted by reason, never thrown: one hostile event must not
 * stop a scan or an indexer.
 * @module
 */
import type { Address, Hex } from 'viem';
import type { RegistryAnnouncement } from '../announcement-binary.ts';
import { toChecksumAddress } from '../address.ts';
import { hexToBytes, isAllZero } from '../bytes.ts';
import { ERC8441_SCHEME_ID } from '../erc8441-meta-address.ts';
import { ERC8441_EPHEMERAL_KEY_BYTES } from '../erc8441-payment.ts';
import { isCompressedPoint } from '../spending-key.ts';
import { isSealedNoteLength } from '../note.ts';
import { CIPHERTEXT_BYTES } from '../viewing-key.ts';
import { InvalidArgumentError } from '../errors.ts';
import { ANNOUNCEMENT_EVENT_TOPIC, ANNOUNCER_ADDRESS, parseAddress, parseSchemeId, WRAITH_SCHEME_ID } from './announcer.ts';
import { chainCursor, isCursorPosition } from './cursor.ts';

/** A JSON-RPC quantity: hex text as `eth_getLogs` returns it, or a number / bigint as viem's `Log` has it. */
export type RpcQuantity = string | number | bigint;

/** A log as `eth_getLogs` returns it (hex quantities) or as viem returns it (`Log`, numbers as bigint/number). */
export type RpcLogLike = {
  address: string;
  topics: readonly (string | null)[];
  data: string;
  blockNumber: RpcQuantity | null;
  logIndex: RpcQuantity | null;
  transactionHash: string | null;
  blockHash: string | null;
  /** Some nodes (anvil, reth, geth >= 1.14.x with the option) add the block's timestamp to each log. */
  blockTimestamp?: RpcQuantity | null;
  /** True for a log a reorg took back (filters report those); it is skipped. */
  removed?: boolean;
};

/** A decoded on-chain announcement, registry-shaped (byte form). `id` is `chainCursor(blockNumber, logIndex)`. */
export type ChainAnnouncement = RegistryAnnouncement & {
  txHash: string;
  blockNumber: number;
  logIndex: number;
  blockHash: Hex;
  /** The announced one-time address (EIP-55); the scanner compares it with the one it derives. */
  stealthAddress: string;
  /**
   * What follows the view tag, or null when the metadata is the view tag alone: the sealed note
   * (PROTOCOL.md section 8, 92 bytes, or 112 naming its asset, 8.1) under scheme 1000, any bytes
   * under scheme 3.
   */
  metadata: Uint8Array | null;
  /** The announcement's format: 1000 (this format, whatever id a deployment announces it under) or 3 (ERC-8441). */
  schemeId: number;
  /** Who called `announce` (EIP-55): the sender's account or contract. */
  caller: string;
  /** Block timestamp (Unix seconds) when the log carried one (`blockTimestamp`), else 0 until filled in. */
  timestamp: number;
};

/**
 * Why a log was not an announcement: a scheme id not asked for, another contract, an ephemeral
 * key of the wrong length for its scheme (or all zero), a scheme-3 `epk` that is not a compressed
 * secp256k1 point, metadata of a length its scheme refuses, or a log that does not decode as an
 * `Announcement` at all (wrong topics or data, pending, removed).
 */
export type DecodeSkipReason = 'scheme' | 'ephemeral-key-length' | 'invalid-epk' | 'metadata-length' | 'undecodable' | 'announcer';

export type DecodeAnnouncementLogsOptions = {
  /**
   * Scheme id(s) to accept (default {@link DEFAULT_SCHEME_IDS}: 1000, this format, and 3,
   * ERC-8441, since one identity receives under both). Any id other than 3 is read as this format
   * (a deployment may announce it under another id).
   */
  schemeId?: bigint | readonly bigint[];
  /** Announcer to accept logs from (default {@link ANNOUNCER_ADDRESS}). */
  announcer?: Address;
  /** The `chain` label the announcements carry (e.g. `ethereum`); default null. */
  chain?: string | null;
};

export type DecodeAnnouncementLogsReturnType = {
  /** The valid announcements, in (blockNumber, logIndex) order. */
  announcements: ChainAnnouncement[];
  /** Logs skipped. */
  skipped: number;
  skippedBy: Record<DecodeSkipReason, number>;
};

/** Metadata of an announcement without a note: the view tag alone. */
const VIEW_TAG_ONLY_BYTES = 1;

/** A fresh tally with every reason at 0. */
export function emptySkipCounts(): Record<DecodeSkipReason, number> {
  return { scheme: 0, 'ephemeral-key-length': 0, 'invalid-epk': 0, 'metadata-length': 0, undecodable: 0, announcer: 0 };
}

/**
 * Decode `Announcement` logs. Never throws on a bad log: it is skipped and counted in
 * `skippedBy`. Timestamps come from the logs' `blockTimestamp` when the node sends it, else 0
 * (`fetchAnnouncements` fills them in).
 *
 * @example
 * import { createPublicClient, http } from 'viem';
 * import { mainnet } from 'viem/chains';
 * import { ANNOUNCER_ADDRESS, ANNOUNCEMENT_EVENT_TOPIC, decodeAnnouncementLogs } from '@wraith-pq/sdk/evm';
 *
 * const client = createPublicClient({ chain: mainnet, transport: http() });
 * const logs = await client.request({
 *   method: 'eth_getLogs',
 *   params: [{ address: ANNOUNCER_ADDRESS, topics: [ANNOUNCEMENT_EVENT_TOPIC], fromBlock: '0x1312d00', toBlock: '0x1312d63' }],
 * });
 * const { announcements, skippedBy } = decodeAnnouncementLogs(logs, { chain: 'ethereum' });
 */
export function decodeAnnouncementLogs(logs: readonly RpcLogLike[], options: DecodeAnnouncementLogsOptions = {}): DecodeAnnouncementLogsReturnType {
  const schemeIds = new Set(schemeIdList(options.schemeId));
  const announcer = parseAddress(options.announcer ?? ANNOUNCER_ADDRESS, 'announcer').toLowerCase();
  const chain = options.chain ?? null;
  const skippedBy = emptySkipCounts();
  const announcements: ChainAnnouncement[] = [];
  for (const log of logs) {
    const result = decodeLog(log, schemeIds, announcer, chain);
    if (typeof result === 'string') skippedBy[result]++;
    else announcements.push(result);
  }
  announcements.sort((a, b) => a.blockNumber - b.blockNumber || a.logIndex - b.logIndex);
  return { announcements, skipped: logs.length - announcements.length, skippedBy };
}

/** The scheme ids read when none are named: this format's (1000) and ERC-8441's (3). */
export const DEFAULT_SCHEME_IDS: readonly bigint[] = Object.freeze([WRAITH_SCHEME_ID, BigInt(ERC8441_SCHEME_ID)]);

/** The scheme ids of an option, checked (uint256 each, at least one). */
export function schemeIdList(option: bigint | readonly bigint[] | undefined): bigint[] {
  const list = option === undefined ? [...DEFAULT_SCHEME_IDS] : typeof option === 'bigint' ? [option] : [...option];
  if (list.length === 0) throw new InvalidArgumentError('schemeId', 'must name at least one scheme id');
  return list.map((id, i) => parseSchemeId(id, typeof option === 'object' ? `schemeId[${i}]` : 'schemeId'));
}

function decodeLog(log: RpcLogLike, schemeIds: ReadonlySet<bigint>, announcer: string, chain: string | null): ChainAnnouncement | DecodeSkipReason {
  if (typeof log !== 'object' || log === null || !Array.isArray(log.topics) || typeof log.data !== 'string' || log.removed === true) return 'undecodable';
  if (typeof log.topics[0] !== 'string' || log.topics[0].toLowerCase() !== ANNOUNCEMENT_EVENT_TOPIC) return 'undecodable';
  if (typeof log.address !== 'string' || log.address.toLowerCase() !== announcer) return 'announcer';
  const args = decodeAnnouncementEvent(log.topics, log.data);
  if (args === undefined) return 'undecodable';
  if (!schemeIds.has(args.schemeId)) return 'scheme';
  const blockNumber = quantity(log.blockNumber);
  const logIndex = quantity(log.logIndex);
  if (blockNumber === undefined || logIndex === undefined || !isCursorPosition(blockNumber, logIndex)) return 'undecodable';
  if (!isHash(log.transactionHash) || !isHash(log.blockHash)) return 'undecodable';
  const ephemeralKey = args.ephemeralPubKey;
  const metadata = args.metadata;
  const erc8441 = args.schemeId === BigInt(ERC8441_SCHEME_ID);
  if (erc8441) {
    // ERC-8441 Section 2.7: the key's length, a non-empty metadata, a valid epk; nothing else.
    if (ephemeralKey.length !== ERC8441_EPHEMERAL_KEY_BYTES) return 'ephemeral-key-length';
    if (metadata.length === 0) return 'metadata-length';
    if (!isCompressedPoint(ephemeralKey.subarray(0, 33))) return 'invalid-epk';
  } else {
    if (ephemeralKey.length !== CIPHERTEXT_BYTES || isAllZero(ephemeralKey)) return 'ephemeral-key-length';
    if (metadata.length !== VIEW_TAG_ONLY_BYTES && !isSealedNoteLength(metadata.length - VIEW_TAG_ONLY_BYTES)) return 'metadata-length';
  }
  return {
    // The row's format: any id other than 3 was accepted as this format's (PROTOCOL.md section 7).
    schemeId: erc8441 ? ERC8441_SCHEME_ID : Number(WRAITH_SCHEME_ID),
    id: chainCursor(blockNumber, logIndex),
    ephemeralKey,
    viewTag: metadata[0]!,
    timestamp: quantity(log.blockTimestamp) ?? 0,
    channelId: null,
    txHash: log.transactionHash.toLowerCase(),
    amount: null,
    chain,
    stealthAddress: toChecksumAddress(args.stealthAddress),
    metadata: metadata.length === VIEW_TAG_ONLY_BYTES ? null : metadata.slice(VIEW_TAG_ONLY_BYTES),
    blockNumber,
    logIndex,
    blockHash: log.blockHash.toLowerCase() as Hex,
    caller: checksumCaller(args.caller),
  };
}

/**
 * The caller's EIP-55 form, remembered for the last few callers: in a busy range most
 * announcements come from a handful of senders or contracts.
 */
const callers = new Map<string, string>();
const MAX_CALLERS = 64;
function checksumCaller(address: string): string {
  let checksummed = callers.get(address);
  if (checksummed === undefined) {
    if (callers.size >= MAX_CALLERS) callers.clear();
    checksummed = toChecksumAddress(address);
    callers.set(address, checksummed);
  }
  return checksummed;
}

const WORD = 32;
const HEX_WORD = /^0x[0-9a-fA-F]{64}$/;
const ADDRESS_WORD = /^0x0{24}[0-9a-fA-F]{40}$/;

/**
 * The indexed topics and the ABI-encoded `(bytes ephemeralPubKey, bytes metadata)` of an
 * `Announcement` log, checked as strictly as an ABI decoder would (three indexed topics,
 * addresses with zero upper bytes, offsets and lengths inside the data, zero padding), without a
 * generic decoder: the data is read once into bytes and both fields are views into it. Undefined
 * when it does not decode.
 */
function decodeAnnouncementEvent(
  topics: readonly (string | null)[],
  data: string,
): { schemeId: bigint; stealthAddress: string; caller: string; ephemeralPubKey: Uint8Array; metadata: Uint8Array } | undefined {
  if (topics.length !== 4) return undefined;
  const [, scheme, stealth, caller] = topics;
  if (typeof scheme !== 'string' || !HEX_WORD.test(scheme)) return undefined;
  if (typeof stealth !== 'string' || !ADDRESS_WORD.test(stealth) || typeof caller !== 'string' || !ADDRESS_WORD.test(caller)) return undefined;
  let bytes: Uint8Array;
  try {
    bytes = data === '0x' ? new Uint8Array(0) : hexToBytes(data, 'data');
  } catch {
    return undefined;
  }
  const first = dynamicBytes(bytes, 0);
  const second = dynamicBytes(bytes, WORD);
  if (first === undefined || second === undefined) return undefined;
  return {
    schemeId: BigInt(scheme),
    stealthAddress: `0x${stealth.slice(26)}`,
    caller: `0x${caller.slice(26)}`,
    ephemeralPubKey: first,
    metadata: second,
  };
}

/** The `bytes` value whose offset is the word at `head`: length word, then the bytes, zero-padded to a word. */
function dynamicBytes(data: Uint8Array, head: number): Uint8Array | undefined {
  const offset = smallWord(data, head);
  if (offset === undefined || offset % WORD !== 0) return undefined;
  const length = smallWord(data, offset);
  if (length === undefined) return undefined;
  const start = offset + WORD;
  const padded = Math.ceil(length / WORD) * WORD;
  if (start + padded > data.length) return undefined;
  for (let i = start + length; i < start + padded; i++) if (data[i] !== 0) return undefined;
  return data.subarray(start, start + length);
}

/** A 32-byte big-endian word that fits in 32 bits (offsets and lengths), else undefined. */
function smallWord(data: Uint8Array, at: number): number | undefined {
  if (at + WORD > data.length) return undefined;
  for (let i = at; i < at + WORD - 4; i++) if (data[i] !== 0) return undefined;
  return ((data[at + 28]! << 24) | (data[at + 29]! << 16) | (data[at + 30]! << 8) | data[at + 31]!) >>> 0;
}

/** A JSON-RPC quantity as a safe integer; undefined when absent or not one. */
export function quantity(value: RpcQuantity | null | undefined): number | undefined {
  let n: number;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'bigint') n = Number(value);
  else if (typeof value === 'string' && /^0x[0-9a-f]{1,14}$/i.test(value)) n = Number.parseInt(value.slice(2), 16);
  else return undefined;
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

function isHash(value: unknown): value is string {
  return typeof value === 'string' && /^0x[0-9a-fA-F]{64}$/.test(value);
}
