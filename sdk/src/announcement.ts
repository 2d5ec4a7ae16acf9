/**
 * Announcements: the registry's JSON record (PROTOCOL.md section 6) and its byte form.
 * @module
 */
import { hexToBytes, isAllZero } from './bytes.ts';
import { InvalidAnnouncementError } from './errors.ts';
import { CIPHERTEXT_BYTES } from './viewing-key.ts';

/** The registry's JSON record (snake_case, hex). */
export type AnnouncementRecord = {
  id: number;
  ephemeral_key: string;
  view_tag: number;
  timestamp?: number;
  channel_id?: string | null;
  tx_hash?: string | null;
  amount?: string | null;
  chain?: string | null;
};

/** The same announcement in byte form (camelCase). */
export type Announcement = {
  id?: number;
  ephemeralKey: Uint8Array;
  viewTag: number;
  timestamp?: number;
  channelId?: Uint8Array | null;
  txHash?: string | null;
  amount?: string | null;
  chain?: string | null;
};

/** Either form is accepted by the scanner. */
export type AnnouncementInput = AnnouncementRecord | Announcement;

/** What scanning needs of an announcement. */
export type ScannableAnnouncement = { ephemeralKey: Uint8Array; viewTag: number };

/**
 * Extract ciphertext and view tag, checking PROTOCOL.md section 6: `ephemeral_key` exactly
 * 1088 bytes and not all zero, `view_tag` an integer 0..255.
 */
export function parseAnnouncement(input: AnnouncementInput, path = 'announcement'): ScannableAnnouncement {
  if (typeof input !== 'object' || input === null) throw new InvalidAnnouncementError(path, 'is not an object');
  let ephemeralKey: Uint8Array;
  let viewTag: unknown;
  if ('ephemeralKey' in input) {
    if (!(input.ephemeralKey instanceof Uint8Array)) throw new InvalidAnnouncementError(`${path}.ephemeralKey`, 'must be a Uint8Array');
    ephemeralKey = input.ephemeralKey;
    viewTag = input.viewTag;
  } else {
    if (typeof input.ephemeral_key !== 'string') throw new InvalidAnnouncementError(`${path}.ephemeral_key`, 'must be a hex string');
    try {
      ephemeralKey = hexToBytes(input.ephemeral_key, `${path}.ephemeral_key`);
    } catch {
      throw new InvalidAnnouncementError(`${path}.ephemeral_key`, 'is not valid hex');
    }
    viewTag = input.view_tag;
  }
  if (ephemeralKey.length !== CIPHERTEXT_BYTES) {
    throw new InvalidAnnouncementError(`${path}.ephemeral_key`, `must be ${CIPHERTEXT_BYTES} bytes`);
  }
  if (isAllZero(ephemeralKey)) throw new InvalidAnnouncementError(`${path}.ephemeral_key`, 'must not be all zero');
  if (typeof viewTag !== 'number' || !Number.isInteger(viewTag) || viewTag < 0 || viewTag > 255) {
    throw new InvalidAnnouncementError(`${path}.view_tag`, 'must be an integer 0..255');
  }
  return { ephemeralKey, viewTag };
}
