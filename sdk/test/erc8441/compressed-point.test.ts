/**
 * One compressed-point check (`isCompressedPoint`, sdk/src/spending-key.ts) behind every place
 * that reads a SEC1-compressed secp256k1 point: the chain decoder's ERC-8441 `epk` skip (Section
 * 2.7, `invalid-epk`), the server's publish schema (API.md: a scheme-3 key's first 33 bytes), the
 * meta-address decoders and the scanner. They must agree on every encoding, or an event the
 * indexer stores could be refused over HTTP, or a row skipped in one place matched in another.
 */
import { encodeAbiParameters, pad, toHex, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { publishAnnouncementRequest } from '../../../lib/schemas/registry.ts';
import { ANNOUNCEMENT_EVENT_TOPIC, ANNOUNCER_ADDRESS, schemeIdTopic } from '../../src/evm/announcer.ts';
import { decodeAnnouncementLogs } from '../../src/evm/index.ts';
import { bytesToHex, createErc8441Payment, createErc8441Scanner, decodeErc8441MetaAddress, erc8441KeysOf, generateKeys, hexToBytes, isCompressedPoint } from '../../src/index.ts';

const keys = erc8441KeysOf(generateKeys());
const payment = createErc8441Payment(keys.metaAddress);
const valid = payment.ephemeralPubKey.slice(0, 33);
const flipped = Uint8Array.of(valid[0] === 0x02 ? 0x03 : 0x02, ...valid.subarray(1)); // the same x, the other y: still a point

/** Encodings of 33 bytes that are not compressed points, and why. */
const notPoints: [string, Uint8Array][] = [
  ['tag 05 (V3-03)', Uint8Array.of(0x05, ...valid.subarray(1))],
  ['tag 04 with 32 bytes after it', Uint8Array.of(0x04, ...valid.subarray(1))],
  ['tag 00', Uint8Array.of(0x00, ...valid.subarray(1))],
  ['x = 5, which has no y (V3-12)', hexToBytes(`02${'00'.repeat(31)}05`)],
  ['x = p, not a field element', hexToBytes('02fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f')],
  ['x = 0', hexToBytes(`02${'00'.repeat(32)}`)],
];

function announcementLog(epk: Uint8Array): Parameters<typeof decodeAnnouncementLogs>[0][number] {
  const data = encodeAbiParameters([{ type: 'bytes' }, { type: 'bytes' }], [toHex(Uint8Array.of(...epk, ...payment.ephemeralPubKey.subarray(33))), toHex(payment.metadata)]);
  return {
    address: ANNOUNCER_ADDRESS,
    topics: [ANNOUNCEMENT_EVENT_TOPIC, schemeIdTopic(3n), pad(payment.stealthAddress as Hex), pad(ANNOUNCER_ADDRESS)],
    data,
    blockNumber: '0x10',
    logIndex: '0x0',
    transactionHash: `0x${'11'.repeat(32)}`,
    blockHash: `0x${'22'.repeat(32)}`,
  };
}

/** What each reader says of `epk` as an ERC-8441 announcement's first 33 bytes: true = accepted. */
function verdicts(epk: Uint8Array) {
  const decoded = decodeAnnouncementLogs([announcementLog(epk)], { schemeId: [3n] });
  // Either decoded, or skipped for its epk alone: never for another reason.
  expect(decoded.announcements.length + decoded.skippedBy['invalid-epk']).toBe(1);
  const published = publishAnnouncementRequest.safeParse({
    ephemeral_key: bytesToHex(Uint8Array.of(...epk, ...payment.ephemeralPubKey.subarray(33))),
    view_tag: payment.viewTag,
    tx_hash: `0x${'33'.repeat(32)}`,
    stealth_address: payment.stealthAddress,
  });
  const scanned = createErc8441Scanner({ trackingKey: keys.trackingKey, metaAddress: keys.metaAddress }).check({
    ephemeralPubKey: Uint8Array.of(...epk, ...payment.ephemeralPubKey.subarray(33)),
    metadata: payment.metadata,
    stealthAddress: payment.stealthAddress,
  });
  let asViewingKey = true;
  try {
    decodeErc8441MetaAddress(Uint8Array.of(...keys.metaAddress.subarray(0, 33), ...epk, ...keys.metaAddress.subarray(66)));
  } catch {
    asViewingKey = false;
  }
  return {
    check: isCompressedPoint(epk),
    chainDecoder: decoded.announcements.length === 1 && decoded.skippedBy['invalid-epk'] === 0,
    httpPublish: published.success,
    scanner: scanned.match || scanned.reason !== 'invalid_epk',
    metaAddressDecoder: asViewingKey,
  };
}

describe('one compressed-point check, everywhere', () => {
  it('accepts both parities of a real point, in every reader', () => {
    for (const epk of [valid, flipped]) {
      expect(verdicts(epk)).toEqual({ check: true, chainDecoder: true, httpPublish: true, scanner: true, metaAddressDecoder: true });
    }
  });

  it.each(notPoints)('refuses %s, in every reader', (_why, epk) => {
    expect(epk).toHaveLength(33);
    expect(verdicts(epk)).toEqual({ check: false, chainDecoder: false, httpPublish: false, scanner: false, metaAddressDecoder: false });
  });

  it('refuses other lengths and the uncompressed form', () => {
    expect(isCompressedPoint(valid.subarray(0, 32))).toBe(false);
    expect(isCompressedPoint(Uint8Array.of(...valid, 0))).toBe(false);
    expect(isCompressedPoint(new Uint8Array(0))).toBe(false);
  });
});
