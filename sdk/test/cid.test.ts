/**
 * CID helpers (sdk/src/cid.ts): parsing the forms a name record holds, verifying downloaded
 * bytes so a gateway cannot substitute content, and the EIP-1577 content hash. Vectors are
 * real IPFS CIDs (`ipfs add` of the same bytes) and the EIP-1577 example.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { base36 } from 'multiformats/bases/base36';
import { base58btc } from 'multiformats/bases/base58';
import { CID } from 'multiformats/cid';
import * as Digest from 'multiformats/hashes/digest';
import { identity } from 'multiformats/hashes/identity';
import { describe, expect, it } from 'vitest';
import {
  ContentMismatchError,
  DAG_PB_CODEC,
  InvalidCidError,
  RAW_CODEC,
  bytesToHex,
  cidForBytes,
  dagPbCidForBytes,
  decodeContenthash,
  encodeContenthash,
  formatIpfsTextRecord,
  generateKeys,
  hexToBytes,
  isIpfsContenthash,
  parseCid,
  verifyCidBytes,
} from '../src/index.ts';

const HELLO = new TextEncoder().encode('hello world\n');
/** `ipfs add --cid-version 1` of "hello world\n": one raw block. */
const HELLO_RAW_CID = 'bafkreifjjcie6lypi6ny7amxnfftagclbuxndqonfipmb64f2km2devei4';
/** `ipfs add` (CIDv0) of "hello world\n": a dag-pb UnixFS file node. */
const HELLO_V0_CID = 'QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5o';
/** That node's block: PBNode{Data: UnixFS{Type: File, Data: "hello world\n", filesize: 12}}. */
const HELLO_V0_BLOCK = hexToBytes(`0a120802120c${bytesToHex(HELLO)}180c`);
/** EIP-1577's example: the content hash of QmRAQB6YaCyidP37UdDnjFY5vQuiBrcqdyoW1CuDgwxkD4. */
const EIP1577_CID = 'QmRAQB6YaCyidP37UdDnjFY5vQuiBrcqdyoW1CuDgwxkD4';
const EIP1577_CONTENTHASH = 'e3010170122029f2d17be6139079dc48696d1f582a8530eb9805b561eda517e22a892c7e3f1f';

describe('parseCid', () => {
  const v1 = parseCid(HELLO_V0_CID).toV1();
  it.each([
    ['a bare CIDv1 (base32)', HELLO_RAW_CID, HELLO_RAW_CID],
    ['ipfs://<cid>', `ipfs://${HELLO_RAW_CID}`, HELLO_RAW_CID],
    ['IPFS://<cid> with an upper-case scheme', `IPFS://${HELLO_RAW_CID}`, HELLO_RAW_CID],
    ['/ipfs/<cid>', `/ipfs/${HELLO_RAW_CID}`, HELLO_RAW_CID],
    ['a CID with surrounding whitespace', `  ipfs://${HELLO_RAW_CID}\n`, HELLO_RAW_CID],
    ['a bare CIDv0', HELLO_V0_CID, HELLO_V0_CID],
    ['ipfs://<CIDv0>', `ipfs://${HELLO_V0_CID}`, HELLO_V0_CID],
    ['a dag-pb CIDv1 in base32', v1.toString(), v1.toString()],
    ['a CIDv1 in base58btc', v1.toString(base58btc), v1.toString()],
    ['a CIDv1 in base36', v1.toString(base36), v1.toString()],
  ])('accepts %s', (_, input, expected) => {
    expect(parseCid(input).toString()).toBe(expected);
  });

  it('reports the codec of the CID', () => {
    expect(parseCid(HELLO_RAW_CID).code).toBe(RAW_CODEC);
    expect(parseCid(HELLO_V0_CID).code).toBe(DAG_PB_CODEC);
  });

  it.each([
    ['an empty string', ''],
    ['whitespace', '   '],
    ['text that is not a CID', 'hello'],
    ['a CIDv0 with a wrong character', `${HELLO_V0_CID.slice(0, -1)}0`],
    ['a truncated CIDv1', HELLO_RAW_CID.slice(0, -4)],
    ['a path after the CID', `ipfs://${HELLO_RAW_CID}/meta.bin`],
    ['an https gateway URL', `https://ipfs.io/ipfs/${HELLO_RAW_CID}`],
    ['an IPNS name', `ipns://${HELLO_RAW_CID}`],
    ['a hex string', '0x' + 'ab'.repeat(36)],
    ['a very long string', 'b'.repeat(10_000)],
    ['a CID with an identity multihash (content inline, nothing to verify)', CID.createV1(RAW_CODEC, identity.digest(HELLO)).toString()],
    ['a dag-cbor CID', CID.createV1(0x71, Digest.create(0x12, sha256(HELLO))).toString()],
  ])('rejects %s with InvalidCidError', (_, input) => {
    expect(() => parseCid(input)).toThrow(InvalidCidError);
  });

  it('never echoes the input in its error message', () => {
    const secretLooking = 'not-a-cid-' + 'f'.repeat(40);
    try {
      parseCid(secretLooking);
      expect.unreachable();
    } catch (error) {
      expect((error as Error).message).not.toContain(secretLooking);
      expect((error as InvalidCidError).code).toBe('INVALID_CID');
    }
  });
});

describe('cidForBytes', () => {
  it('gives the CID IPFS gives the same bytes as one raw block', () => {
    expect(cidForBytes(HELLO).toString()).toBe(HELLO_RAW_CID);
  });

  it('gives a meta-address a CIDv1 raw sha2-256 CID that verifies', () => {
    const { metaAddress } = generateKeys();
    const cid = cidForBytes(metaAddress);
    expect(cid.version).toBe(1);
    expect(cid.code).toBe(RAW_CODEC);
    expect(verifyCidBytes(cid, metaAddress)).toEqual(metaAddress);
  });
});

describe('dagPbCidForBytes', () => {
  it('gives the CIDv0 `ipfs add` gives the same bytes, empty file included', () => {
    expect(dagPbCidForBytes(HELLO).toString()).toBe(HELLO_V0_CID);
    expect(dagPbCidForBytes(new Uint8Array(0)).toString()).toBe('QmbFMke1KXqnYyBBWxB74N4c5SBnJMVAiMNRcGu6x1AwQH');
  });

  it('gives a meta-address a dag-pb CID that its raw bytes verify against', () => {
    const { metaAddress } = generateKeys();
    const cid = dagPbCidForBytes(metaAddress);
    expect(cid.toString()).toMatch(/^Qm/);
    expect(verifyCidBytes(cid, metaAddress)).toEqual(metaAddress);
    expect(() => verifyCidBytes(cid, generateKeys().metaAddress)).toThrow(ContentMismatchError);
  });
});

describe('verifyCidBytes', () => {
  it('returns the bytes of a raw CID when they hash to it', () => {
    expect(verifyCidBytes(HELLO_RAW_CID, HELLO)).toEqual(HELLO);
  });

  it('returns the file content when given the dag-pb block of a CIDv0', () => {
    expect(verifyCidBytes(HELLO_V0_CID, HELLO_V0_BLOCK)).toEqual(HELLO);
  });

  it('accepts the file itself for a CIDv0, as a gateway serves it', () => {
    expect(verifyCidBytes(HELLO_V0_CID, HELLO)).toEqual(HELLO);
  });

  it('verifies the empty file under its well-known CIDv0', () => {
    expect(verifyCidBytes('QmbFMke1KXqnYyBBWxB74N4c5SBnJMVAiMNRcGu6x1AwQH', new Uint8Array(0))).toEqual(new Uint8Array(0));
  });

  it('refuses another meta-address served under the CID of mine', () => {
    const mine = generateKeys().metaAddress;
    const theirs = generateKeys().metaAddress;
    expect(() => verifyCidBytes(cidForBytes(mine), theirs)).toThrow(ContentMismatchError);
  });

  it('refuses a single flipped bit', () => {
    const tampered = HELLO.slice();
    tampered[0]! ^= 1;
    expect(() => verifyCidBytes(HELLO_RAW_CID, tampered)).toThrow(ContentMismatchError);
    expect(() => verifyCidBytes(HELLO_V0_CID, tampered)).toThrow(ContentMismatchError);
  });

  it('refuses a dag-pb block that links to other blocks (a directory or large file)', () => {
    // PBNode{Links: [{Hash: <CIDv0 bytes of HELLO>, Name: "a"}], Data: UnixFS{Type: Directory}}
    const link = concat(hexToBytes('0a22'), parseCid(HELLO_V0_CID).bytes, hexToBytes('120161'));
    const block = concat(hexToBytes(`12${link.length.toString(16)}`), link, hexToBytes('0a020801'));
    const cid = cidForDagPb(block);
    expect(() => verifyCidBytes(cid, block)).toThrow(ContentMismatchError);
  });

  it('reports a mismatch with the CONTENT_MISMATCH code', () => {
    try {
      verifyCidBytes(HELLO_RAW_CID, new Uint8Array(3));
      expect.unreachable();
    } catch (error) {
      expect((error as ContentMismatchError).code).toBe('CONTENT_MISMATCH');
    }
  });
});

describe('name record helpers', () => {
  it('formats the text record as ipfs://<cid>', () => {
    expect(formatIpfsTextRecord(HELLO_RAW_CID)).toBe(`ipfs://${HELLO_RAW_CID}`);
    expect(parseCid(formatIpfsTextRecord(cidForBytes(HELLO))).toString()).toBe(HELLO_RAW_CID);
  });

  it('encodes the EIP-1577 example content hash', () => {
    expect(bytesToHex(encodeContenthash(EIP1577_CID))).toBe(EIP1577_CONTENTHASH);
  });

  it('decodes a content hash back to the same content (a CIDv0 comes back as its CIDv1)', () => {
    expect(decodeContenthash(EIP1577_CONTENTHASH).toV0().toString()).toBe(EIP1577_CID);
    expect(decodeContenthash(`0x${EIP1577_CONTENTHASH}`).equals(parseCid(EIP1577_CID).toV1())).toBe(true);
    const raw = cidForBytes(HELLO);
    expect(decodeContenthash(encodeContenthash(raw)).toString()).toBe(HELLO_RAW_CID);
  });

  it('tells IPFS content hashes from other namespaces', () => {
    expect(isIpfsContenthash(EIP1577_CONTENTHASH)).toBe(true);
    expect(isIpfsContenthash('e50101720024080112' + 'ab'.repeat(32))).toBe(false); // ipns-ns
    expect(() => decodeContenthash('e40101fa011b20' + 'ab'.repeat(32))).toThrow(InvalidCidError); // swarm-ns
  });

  it('rejects an IPFS content hash whose CID is malformed', () => {
    expect(() => decodeContenthash('e30101701220abcd')).toThrow(InvalidCidError);
    expect(() => decodeContenthash('e301')).toThrow(InvalidCidError);
  });
});

// --- helpers ----------------------------------------------------------------------------------

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

function cidForDagPb(block: Uint8Array): CID {
  return CID.createV1(DAG_PB_CODEC, Digest.create(0x12, sha256(block)));
}
