/**
 * The plain decoder of binary announcement pages (layout in announcement-binary.ts): one field
 * after another with a DataView, `TextDecoder` for every text, the stealth address checksummed
 * at once, plain objects. Not exported from the package: tests hold the fast
 * `decodeAnnouncementPage` to it, row for row and error for error.
 * @module
 */
import { toChecksumAddress } from './address.ts';
import type { DecodedAnnouncement } from './announcement-binary.ts';
import { bytesToHex } from './bytes.ts';
import { InvalidAnnouncementError } from './errors.ts';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Decode a version-1 or version-2 page; throws {@link InvalidAnnouncementError} on anything malformed. */
export function decodeAnnouncementPageReference(bytes: Uint8Array): DecodedAnnouncement[] {
  const fail = (issue: string): never => {
    throw new InvalidAnnouncementError('page', issue);
  };
  const magic = String.fromCharCode(...bytes.subarray(0, 4));
  if (bytes.length < 8 || (magic !== 'WRA1' && magic !== 'WRA2')) fail('is not a page of version 1 or 2');
  const v2 = magic === 'WRA2';
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 8;
  const take = (n: number): Uint8Array => {
    if (at + n > bytes.length) fail('is truncated');
    at += n;
    return bytes.subarray(at - n, at);
  };
  const u8 = () => take(1)[0]!;
  const u16 = () => view.getUint16(take(2).byteOffset - bytes.byteOffset, true);
  const u32 = () => view.getUint32(take(4).byteOffset - bytes.byteOffset, true);
  const u64 = () => {
    const value = Number(view.getBigUint64(take(8).byteOffset - bytes.byteOffset, true));
    if (!Number.isSafeInteger(value)) fail('holds a number beyond 2^53');
    return value;
  };
  const text = () => {
    try {
      return utf8.decode(take(u16()));
    } catch (error) {
      if (error instanceof InvalidAnnouncementError) throw error;
      return fail('holds a text field that is not UTF-8');
    }
  };
  const count = view.getUint32(4, true);
  const rows: DecodedAnnouncement[] = [];
  for (let i = 0; i < count; i++) {
    const id = u64();
    const timestamp = u64();
    const viewTag = u8();
    const fields = v2 ? u16() : u8();
    if (fields & ~(v2 ? 0xff : 0x7f)) fail('holds unknown field flags');
    const schemeId = v2 ? u32() : 1000;
    const ephemeralKey = take(v2 ? u16() : 1088);
    const channelId = fields & 1 ? take(32) : null;
    const txHash = fields & 2 ? text() : null;
    const amount = fields & 4 ? text() : null;
    const chain = fields & 8 ? text() : null;
    const metadata = fields & 16 ? take(v2 ? u32() : u8()) : null;
    const stealthAddress = fields & 32 ? toChecksumAddress(bytesToHex(take(20))) : null;
    const blockNumber = fields & 64 ? u64() : null;
    const logIndex = fields & 64 ? u32() : null;
    const chainId = fields & 128 ? u64() : null;
    if (chainId === 0) fail('holds a chain id that is not a positive safe integer');
    rows.push({ id, timestamp, viewTag, ephemeralKey, channelId, txHash, amount, chain, metadata, stealthAddress, blockNumber, logIndex, chainId, schemeId });
  }
  if (at !== bytes.length) fail('has trailing bytes');
  return rows;
}
