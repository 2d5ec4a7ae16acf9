/**
 * Wraith SDK: post-quantum stealth payments.
 *
 * Viewing keys are ML-KEM-768 (FIPS 203), spending keys secp256k1; a sender pays a one-time
 * address that only the recipient can find (viewing key) and spend (spending key). The byte
 * formats are fixed by PROTOCOL.md (wire format v2). Bytes are `Uint8Array`; hex is accepted
 * on input wherever bytes are.
 * @module
 */
export {
  WraithError,
  InvalidHexError,
  InvalidKeyError,
  KeyMismatchError,
  InvalidMetaAddressError,
  LegacyMetaAddressError,
  InvalidAnnouncementError,
  InvalidArgumentError,
  InvalidKeystoreError,
  WrongPasswordError,
  KeystoreTamperedError,
  type WraithErrorCode,
  type WraithErrorDetail,
} from './errors.ts';
export { bytesToHex, hexToBytes, equalBytes, type BytesInput } from './bytes.ts';
export { domainHash, DOMAIN } from './hash.ts';
export { computeViewTag } from './view-tag.ts';
export { generateKeys, type GenerateKeysParameters, type RecipientKeys } from './keys.ts';
export { deriveKeysFromSignature } from './keys-from-signature.ts';
export {
  sealKeys,
  openKeys,
  KEYSTORE_VERSION,
  PBKDF2_ITERATIONS,
  type KeystoreEnvelope,
  type SealKeysOptions,
  type SealableKeys,
} from './keystore.ts';
export {
  encodeMetaAddress,
  decodeMetaAddress,
  formatMetaAddressUri,
  META_ADDRESS_BYTES,
  META_ADDRESS_VERSION,
  type MetaAddress,
  type EncodeMetaAddressParameters,
} from './meta-address.ts';
export { metaAddressFingerprint, fingerprintMatches } from './fingerprint.ts';
export {
  CSV_COLUMNS as HISTORY_CSV_COLUMNS,
  csvField,
  historyCsv,
  historyJson,
  historyRows,
  InvalidHistoryError,
  mergeHistory,
  parseHistoryRecords,
  samePayment,
  upsertPayment,
  type HistoryRecord,
  type HistoryRecords,
  type MergeOutcome,
  type PaymentRecord,
  type WithdrawalRecord,
} from './history.ts';
export { nameRegistrationMessage, type NameAction, type NameRegistrationMessageParameters } from './name-registration.ts';
export { spendingAccountOf } from './spending-account.ts';
export { createStealthPayment, type CreateStealthPaymentOptions, type StealthPayment } from './payment.ts';
export {
  deriveStealthKeys,
  deriveStealthAddress,
  deriveStealthTweak,
  type DeriveStealthKeysParameters,
  type DeriveStealthAddressParameters,
  type StealthAddress,
  type StealthKeys,
} from './stealth-keys.ts';
export { checksumProblem, evmAddressOf, suiAddressOf, toChecksumAddress, type AddressProblem } from './address.ts';
export {
  sealNote,
  openNote,
  encodeNote,
  readNote,
  announcementMetadata,
  isSealedNoteLength,
  NOTE_PLAINTEXT_BYTES,
  SEALED_NOTE_BYTES,
  ANNOUNCEMENT_METADATA_BYTES,
  NOTE_V1_PLAINTEXT_BYTES,
  SEALED_NOTE_V1_BYTES,
  ANNOUNCEMENT_METADATA_V1_BYTES,
  type NoteReading,
  type NoteToken,
  type PaymentNote,
  type PaymentNoteInput,
} from './note.ts';
export {
  parseAnnouncement,
  erc8441RowOf,
  MALFORMED_LIST_LIMIT,
  type Erc8441Row,
  type Announcement,
  type AnnouncementRecord,
  type AnnouncementInput,
  type PaymentAnnouncement,
  type MalformedAnnouncement,
} from './announcement.ts';
export {
  encodeAnnouncementPage,
  decodeAnnouncementPage,
  ANNOUNCEMENT_PAGE_MEDIA_TYPE,
  ANNOUNCEMENT_PAGE_VERSION,
  UnsupportedPageVersionError,
  type RegistryAnnouncement,
  type DecodedAnnouncement,
} from './announcement-binary.ts';
export {
  createScanner,
  kernelByName,
  effectiveKernel,
  type EffectiveKernel,
  scanAnnouncements,
  type ScanKeys,
  type Scanner,
  type ScanResult,
  type ScanStats,
  type Discovery,
  type CreateScannerOptions,
} from './scanner.ts';
export {
  scanRegistry,
  arrayPageSource,
  type ChainCursors,
  type RegistryPageSource,
  type ScanBatch,
  type ScanProgress,
  type ScanRegistryOptions,
} from './scan-registry.ts';
export { createScanPool, type ScanPool, type CreateScanPoolOptions, type ScanWorkerLike } from './scan-pool.ts';
export {
  createScanWorkerHandler,
  connectScanWorker,
  type ScanWorkerRequest,
  type ScanWorkerResponse,
  type ScanWorkerScope,
  type WorkerErc8441Match,
} from './scan-worker-protocol.ts';
export { referenceKernel, type ScanKernel, type ScanKernelFactory, type ScanKernelName } from './scan-kernel.ts';
export { typescriptKernel, typescriptKernelAvailable } from './scan-kernel-typescript.ts';
export { wasmKernel, wasmKernelAvailable } from './scan-kernel-wasm.ts';
export {
  CIPHERTEXT_BYTES,
  SHARED_SECRET_BYTES,
  VIEWING_PUBLIC_KEY_BYTES,
  VIEWING_SECRET_KEY_BYTES,
  VIEWING_SEED_BYTES,
  hasCanonicalCoefficients,
} from './viewing-key.ts';
export { SPENDING_PUBLIC_KEY_BYTES, SPENDING_SECRET_BYTES, CURVE_ORDER, isCompressedPoint } from './spending-key.ts';
export {
  parseCid,
  cidForBytes,
  dagPbCidForBytes,
  verifyCidBytes,
  formatIpfsTextRecord,
  encodeContenthash,
  decodeContenthash,
  isIpfsContenthash,
  InvalidCidError,
  ContentMismatchError,
  RAW_CODEC,
  DAG_PB_CODEC,
  SHA2_256_CODE,
  type Cid,
} from './cid.ts';
export * from './client/index.ts';

// ERC-8441 (schemeId 3): hybrid ML-KEM-768 + secp256k1 ECDH (PROTOCOL.md section 10).
export * from './erc8441-keys.ts';
export * from './erc8441-meta-address.ts';
export * from './erc8441-payment.ts';
export * from './erc8441-scan.ts';
