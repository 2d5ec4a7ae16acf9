/**
 * IPFS content identifiers for published meta-addresses (INTERFACE.md 4.4 and 4.5).
 *
 * A recipient uploads the 1218 raw bytes of their meta-address and writes `ipfs://<cid>` into a
 * name record (ENS text record `stealth-meta`, or a content hash). A sender downloads the bytes
 * through some gateway and must not trust it: {@link verifyCidBytes} checks the bytes against
 * the CID, so a gateway cannot substitute someone else's meta-address.
 *
 * Supported CIDs are the two shapes a small file gets on IPFS, both hashed with sha2-256:
 * - CIDv1 `raw` (0x55): the block is the file (what `ipfs add --cid-version 1` gives a file
 *   of one chunk, and what {@link cidForBytes} computes);
 * - `dag-pb` (0x70, every CIDv0 `Qm…`): a UnixFS file node holding the bytes in one block.
 *   Gateways return either that block (`Accept: application/vnd.ipld.raw`) or the file itself;
 *   both are verified, the second by rebuilding the node a single-chunk file has.
 *
 * Record helpers: {@link formatIpfsTextRecord} (`ipfs://<cid>`) and the EIP-1577 content hash
 * ({@link encodeContenthash} / {@link decodeContenthash}: `0xe3 0x01` — the `ipfs-ns` codec as
 * a varint — followed by the binary CIDv1). Browser-safe: multiformats for CIDs, @noble/hashes
 * for sha2-256 (synchronous, no WebCrypto or Node built-ins).
 * @module
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { CID } from 'multiformats/cid';
import * as Digest from 'multiformats/hashes/digest';
import { concatBytes, equalBytes, toBytes, type BytesInput } from './bytes.ts';
import { WraithError } from './errors.ts';

export const RAW_CODEC = 0x55;
export const DAG_PB_CODEC = 0x70;
export const SHA2_256_CODE = 0x12;
const SHA2_256_BYTES = 32;
/** EIP-1577 prefix of an IPFS content hash: the multicodec `ipfs-ns` (0xe3) as a varint. */
const IPFS_CONTENTHASH_PREFIX = Uint8Array.of(0xe3, 0x01);
/** Longest CID text accepted: a base32 CIDv1 sha2-256 is 59 characters; leaves room for others. */
const MAX_CID_TEXT = 200;

/** A CID this module can verify content against. */
export type Cid = CID;

/** Not a CID, or a CID this SDK cannot verify content for. */
export class InvalidCidError extends WraithError {
  override name = 'InvalidCidError';
  constructor(issue: string, params: { cause?: unknown; path?: string } = {}) {
    super('INVALID_CID', `Invalid CID: ${issue}.`, {
      ...(params.cause === undefined ? {} : { cause: params.cause }),
      hint: 'Use ipfs://<cid>, /ipfs/<cid> or a bare CID of a raw or dag-pb block hashed with sha2-256.',
      details: [{ path: params.path ?? 'cid', issue }],
    });
  }
}

/** Downloaded bytes are not the content the CID names. */
export class ContentMismatchError extends WraithError {
  override name = 'ContentMismatchError';
  constructor(issue: string) {
    super('CONTENT_MISMATCH', `The content does not match its CID: ${issue}.`, {
      hint: 'The gateway returned something else; do not use these bytes.',
      details: [{ path: 'content', issue }],
    });
  }
}

/**
 * Parse a CID reference: `ipfs://<cid>`, `/ipfs/<cid>` or a bare CID (CIDv0 `Qm…`, CIDv1 in
 * base32 `b…`, base36 `k…` or base58btc `z…`), surrounding whitespace ignored.
 *
 * @example
 * parseCid('ipfs://bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy').code // 0x55
 * @throws {InvalidCidError} for anything else, including paths after the CID and CIDs whose
 * codec or hash this module cannot verify.
 */
export function parseCid(input: string): Cid {
  if (typeof input !== 'string') throw new InvalidCidError('expected a string');
  const text = input.trim();
  if (text.length === 0 || text.length > MAX_CID_TEXT + '/ipfs/'.length) throw new InvalidCidError('empty or too long');
  const bare = /^ipfs:\/\//i.test(text) ? text.slice('ipfs://'.length) : text.startsWith('/ipfs/') ? text.slice('/ipfs/'.length) : text;
  if (!/^[A-Za-z0-9]+$/.test(bare)) throw new InvalidCidError('expected ipfs://<cid>, /ipfs/<cid> or a bare CID, with nothing after the CID');
  let cid: CID;
  try {
    cid = CID.parse(bare);
  } catch (cause) {
    throw new InvalidCidError('not a parseable CID', { cause });
  }
  return requireSupported(cid);
}

function requireSupported(cid: CID): Cid {
  if (cid.code !== RAW_CODEC && cid.code !== DAG_PB_CODEC) throw new InvalidCidError(`unsupported codec 0x${cid.code.toString(16)} (expected raw or dag-pb)`);
  if (cid.multihash.code !== SHA2_256_CODE || cid.multihash.digest.length !== SHA2_256_BYTES) {
    throw new InvalidCidError(`unsupported multihash 0x${cid.multihash.code.toString(16)} (expected sha2-256)`);
  }
  return cid;
}

function asCid(cid: Cid | string): Cid {
  if (typeof cid === 'string') return parseCid(cid);
  // A CID from another copy of multiformats is not `instanceof CID`; CID.asCID accepts both.
  const parsed = CID.asCID(cid);
  if (parsed === null) throw new InvalidCidError('expected a CID');
  return requireSupported(parsed);
}

/**
 * The CID IPFS gives `bytes` stored as one raw block: CIDv1, `raw` codec, sha2-256 (the
 * `bafkrei…` form). This is the CID the embedded store of the server reports on upload.
 */
export function cidForBytes(bytes: Uint8Array): Cid {
  return CID.createV1(RAW_CODEC, Digest.create(SHA2_256_CODE, sha256(bytes)));
}

/**
 * The CID `ipfs add` gives `bytes` with its defaults (CIDv0 `Qm…`): the dag-pb UnixFS file node
 * of a single chunk (files up to the 256 KiB chunk size, so every meta-address). ENS tools often
 * write this form into a content hash.
 */
export function dagPbCidForBytes(bytes: Uint8Array): Cid {
  return CID.createV0(Digest.create(SHA2_256_CODE, sha256(singleChunkFileNode(bytes))));
}

/**
 * Check downloaded bytes against their CID and return the file content.
 *
 * - `raw` CID: the bytes must hash to the CID; they are the content.
 * - `dag-pb` CID: either the bytes are the block (they hash to the CID and hold a single-block
 *   UnixFS file, whose data is returned), or they are the file itself and the UnixFS node of a
 *   single-chunk file built around them hashes to the CID.
 *
 * @example
 * const content = verifyCidBytes(cid, await (await fetch(gatewayUrl)).bytes());
 * @throws {ContentMismatchError} when the bytes are not the content of `cid` (or the CID names a
 * directory or a multi-block file). {@link InvalidCidError} for an unsupported CID.
 */
export function verifyCidBytes(cid: Cid | string, bytes: Uint8Array): Uint8Array {
  const target = asCid(cid);
  const digest = target.multihash.digest;
  if (equalBytes(sha256(bytes), digest)) {
    return target.code === RAW_CODEC ? bytes : unixfsFileContent(bytes);
  }
  if (target.code === DAG_PB_CODEC && equalBytes(sha256(singleChunkFileNode(bytes)), digest)) return bytes;
  throw new ContentMismatchError('the bytes do not hash to the CID');
}

/** `ipfs://<cid>`: the value to write into a name's `stealth-meta` text record. */
export function formatIpfsTextRecord(cid: Cid | string): string {
  return `ipfs://${asCid(cid).toString()}`;
}

/**
 * The EIP-1577 content hash of `cid`: `0xe3 0x01 || CIDv1 bytes` (a CIDv0 is written in its
 * CIDv1 form, as ENS tools do), for a resolver's `setContenthash` or a SuiNS record.
 */
export function encodeContenthash(cid: Cid | string): Uint8Array {
  return concatBytes(IPFS_CONTENTHASH_PREFIX, asCid(cid).toV1().bytes);
}

/** True when `contenthash` is in the IPFS namespace of EIP-1577 (starts with `0xe3 0x01`). */
export function isIpfsContenthash(contenthash: BytesInput): boolean {
  const bytes = toBytes(contenthash, 'contenthash');
  return bytes.length > IPFS_CONTENTHASH_PREFIX.length && equalBytes(bytes.subarray(0, IPFS_CONTENTHASH_PREFIX.length), IPFS_CONTENTHASH_PREFIX);
}

/**
 * The CID of an EIP-1577 IPFS content hash (bytes or hex).
 * @throws {InvalidCidError} for another namespace (IPNS, Swarm, …) or a malformed CID.
 */
export function decodeContenthash(contenthash: BytesInput): Cid {
  const bytes = toBytes(contenthash, 'contenthash');
  if (!isIpfsContenthash(bytes)) {
    throw new InvalidCidError('not an IPFS content hash (EIP-1577 namespace ipfs-ns, 0xe3)', { path: 'contenthash' });
  }
  let cid: CID;
  try {
    cid = CID.decode(bytes.subarray(IPFS_CONTENTHASH_PREFIX.length));
  } catch (cause) {
    throw new InvalidCidError('the content hash does not contain a valid binary CID', { cause, path: 'contenthash' });
  }
  return requireSupported(cid);
}

// --- dag-pb / UnixFS, the subset a single-block file needs ----------------------------------
// PBNode { repeated PBLink Links = 2; optional bytes Data = 1; }  (dag-pb spec)
// UnixFS Data { Type = 1 (Raw 0, File 2, …); Data = 2; filesize = 3; blocksizes = 4; … }

const UNIXFS_RAW = 0;
const UNIXFS_FILE = 2;

/** The data of a single-block UnixFS file node, or ContentMismatchError. */
function unixfsFileContent(block: Uint8Array): Uint8Array {
  const notAFile = () => new ContentMismatchError('the CID does not name a single-block file (a directory, a multi-block file or not UnixFS)');
  let nodeData: Uint8Array | undefined;
  for (const field of protobufFields(block, notAFile)) {
    if (field.number === 2) throw notAFile(); // a link: directory or multi-block file
    if (field.number !== 1 || field.bytes === undefined || nodeData !== undefined) throw notAFile();
    nodeData = field.bytes;
  }
  if (nodeData === undefined) throw notAFile();
  let type: number | undefined;
  let content: Uint8Array = new Uint8Array(0);
  let fileSize: number | undefined;
  for (const field of protobufFields(nodeData, notAFile)) {
    if (field.number === 1) type = field.value;
    else if (field.number === 2 && field.bytes !== undefined) content = field.bytes.slice();
    else if (field.number === 3) fileSize = field.value;
    else if (field.number === 4) throw notAFile(); // blocksizes: the content is in child blocks
  }
  if (type !== UNIXFS_FILE && type !== UNIXFS_RAW) throw notAFile();
  if (fileSize !== undefined && fileSize !== content.length) throw notAFile();
  return content;
}

/** The dag-pb block of a file of one chunk as IPFS builds it: File node with data and filesize. */
function singleChunkFileNode(content: Uint8Array): Uint8Array {
  const unixfs = concatBytes(
    Uint8Array.of(0x08, UNIXFS_FILE), // Type = File
    content.length > 0 ? concatBytes(Uint8Array.of(0x12), varint(content.length), content) : new Uint8Array(0), // Data
    Uint8Array.of(0x18), // filesize
    varint(content.length),
  );
  return concatBytes(Uint8Array.of(0x0a), varint(unixfs.length), unixfs); // PBNode.Data
}

function varint(value: number): Uint8Array {
  const out: number[] = [];
  while (value >= 0x80) {
    out.push((value % 0x80) | 0x80);
    value = Math.floor(value / 0x80);
  }
  out.push(value);
  return Uint8Array.from(out);
}

type ProtobufField = { number: number; value?: number; bytes?: Uint8Array };

/** Fields of a protobuf message with varint (0) and length-delimited (2) wire types only. */
function protobufFields(message: Uint8Array, malformed: () => Error): ProtobufField[] {
  const fields: ProtobufField[] = [];
  let offset = 0;
  const readVarint = (): number => {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 8; i++) {
      if (offset >= message.length) throw malformed();
      const byte = message[offset++]!;
      value += (byte & 0x7f) * scale;
      if ((byte & 0x80) === 0) return value;
      scale *= 0x80;
    }
    throw malformed(); // larger than 2^56: no field of these messages needs it
  };
  while (offset < message.length) {
    const key = readVarint();
    const number = Math.floor(key / 8);
    const wireType = key % 8;
    if (wireType === 0) fields.push({ number, value: readVarint() });
    else if (wireType === 2) {
      const length = readVarint();
      if (length > message.length - offset) throw malformed();
      fields.push({ number, bytes: message.subarray(offset, offset + length) });
      offset += length;
    } else throw malformed();
  }
  return fields;
}
