/**
 * The `@wraith-pq/sdk/scan` entry: everything a recipient's scanner needs and nothing else
 * (no payment creation, keystore, CID or HTTP client code), for apps that only watch for
 * payments. Scanning is described in scanner.ts (one batch), scan-registry.ts (a whole registry,
 * resumable) and scan-pool.ts (on worker threads).
 * @module
 */
// Whole modules: everything they export is public scanning API.
export * from './scanner.ts';
export * from './scan-registry.ts';
export * from './scan-pool.ts';
export * from './scan-kernel.ts';
export * from './scan-kernel-typescript.ts';
export { wasmKernel, wasmKernelAvailable } from './scan-kernel-wasm.ts';
export {
  createScanWorkerHandler,
  connectScanWorker,
  type ScanWorkerRequest,
  type ScanWorkerResponse,
  type ScanWorkerScope,
  type WorkerErc8441Match,
} from './scan-worker-protocol.ts';
export {
  decodeAnnouncementPage,
  ANNOUNCEMENT_PAGE_MEDIA_TYPE,
  ANNOUNCEMENT_PAGE_VERSION,
  UnsupportedPageVersionError,
  type RegistryAnnouncement,
  type DecodedAnnouncement,
} from './announcement-binary.ts';
export {
  parseAnnouncement,
  MALFORMED_LIST_LIMIT,
  type Announcement,
  type AnnouncementRecord,
  type AnnouncementInput,
  type PaymentAnnouncement,
  type MalformedAnnouncement,
} from './announcement.ts';
// Discoveries carry the opened note; openNote reads a note kept aside (PROTOCOL.md section 8).
export { openNote, SEALED_NOTE_BYTES, SEALED_NOTE_V1_BYTES, type NoteToken, type PaymentNote } from './note.ts';
export { deriveStealthKeys, type DeriveStealthKeysParameters, type StealthKeys } from './stealth-keys.ts';
export { bytesToHex, hexToBytes, type BytesInput } from './bytes.ts';
export { WraithError, InvalidArgumentError, InvalidAnnouncementError, InvalidKeyError, KeyMismatchError, type WraithErrorCode } from './errors.ts';
