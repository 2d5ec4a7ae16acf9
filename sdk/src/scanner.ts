/**
 * Scanning (recipient side), PROTOCOL.md section 5.
 *
 * `createScanner(keys)` validates and prepares the keys once; `scan(batch)` runs each
 * announcement through the kernel: candidate secret, view-tag comparison, and only on a match
 * the re-encryption confirmation. Correctness bar: exactly the announcements created for the
 * key are discovered, whatever else the registry holds (foreign, random, crafted, tampered).
 * @module
 */
import { bytesToBigInt, toBytes, type BytesInput } from './bytes.ts';
import {
  announcedStealthAddressOf,
  packAnnouncements,
  sealedNoteOf,
  type AnnouncementInput,
  type Erc8441Row,
  type MalformedAnnouncement,
} from './announcement.ts';
import { erc8441KeysOf } from './erc8441-keys.ts';
import { createErc8441Scanner, erc8441StealthKey, type Erc8441Scanner, type Erc8441ScannerOptions } from './erc8441-scan.ts';
import { erc8441Offset } from './erc8441-payment.ts';
import { isSealedNoteLength, readNote, type NoteReading } from './note.ts';
import { InvalidArgumentError } from './errors.ts';
import {
  assertSpendingKeyPair,
  parseSpendingPublicKey,
  parseSpendingSecret,
  Point,
  scalarToBytes,
} from './spending-key.ts';
import {
  deriveStealthKeysFor,
  deriveStealthTweak,
  stealthAddressOf,
  stealthPointFrom,
  type StealthAddress,
} from './stealth-keys.ts';
import { referenceKernel, type ScanKernelFactory, type ScanKernelName } from './scan-kernel.ts';
import { typescriptKernel } from './scan-kernel-typescript.ts';
import { wasmKernel, wasmKernelAvailable } from './scan-kernel-wasm.ts';
import {
  assertViewingKeyPair,
  CIPHERTEXT_BYTES,
  parseViewingPublicKey,
  parseViewingSecretKey,
  SHARED_SECRET_BYTES,
} from './viewing-key.ts';

const CHUNK = 64;

/**
 * Keys a scan needs. `RecipientKeys` from `generateKeys` fits as is; leave out
 * `spendingSecretKey` for a view-only scan (discoveries then carry `sharedSecret` instead of
 * `stealthSecretKey`).
 */
export type ScanKeys = {
  viewingSecretKey: BytesInput;
  spendingPublicKey: BytesInput;
  spendingSecretKey?: BytesInput;
  /** Optional: when given it must be the key embedded in `viewingSecretKey`. */
  viewingPublicKey?: BytesInput;
  /**
   * The ML-KEM seed `d || z` (`RecipientKeys.viewingSeed`). With `spendingSecretKey` it gives the
   * identity's ERC-8441 keys (PROTOCOL.md section 10), so scheme-3 rows are scanned too.
   */
  viewingSeed?: BytesInput;
  /**
   * ERC-8441 keys to scan scheme-3 rows with when they cannot be derived (a view-only scan): the
   * 96-byte tracking key and the 1250-byte meta-address it belongs to.
   */
  erc8441?: { trackingKey: BytesInput; metaAddress: BytesInput };
};

/** A payment found for the scanned key. */
export type Discovery<A = AnnouncementInput> = StealthAddress & {
  /** The scheme it was found under: 1000 (this format) or 3 (ERC-8441, decided by the announced address). */
  schemeId: 1000 | 3;
  /** The announcement as it was passed in. */
  announcement: A;
  /** Its position in the scanned batch. */
  index: number;
  /** `p` (32 bytes), present when the spending secret was given. Spends the funds. */
  stealthSecretKey?: Uint8Array;
  /** `K` (32 bytes), present in view-only scans: the key holder derives `p` from it. */
  sharedSecret?: Uint8Array;
  /**
   * Whether the announcement carried a sealed note (PROTOCOL.md section 8) and whether it opened:
   * `'unreadable'` when it failed authentication or is not a note. Notes are advisory: the
   * payment is a discovery either way, and the chain's balances are the truth.
   */
  noteStatus: NoteReading['noteStatus'];
  /**
   * The opened note when `noteStatus` is `'opened'`, else null. Its `token` names the asset paid
   * (`'coin'` or the token's address) when the sender sealed a version-1 note (PROTOCOL.md 8.1).
   */
  note: NoteReading['note'];
  /**
   * True when the announcement names a stealth address (chain events) other than the one derived
   * here: a buggy or hostile sender (PROTOCOL.md section 7). The funds sit at `stealthAddress`.
   */
  stealthAddressMismatch: boolean;
};

export type ScanStats = {
  /** Announcements in the batch (malformed ones included). */
  totalScanned: number;
  /** Announcements whose view tag matched the candidate secret's. */
  viewTagMatches: number;
  discoveries: number;
  /** Announcements skipped because they are not well-formed (wrong length, bad tag, ...): all of them, listed or not. */
  malformed: number;
  /**
   * Scheme-3 (ERC-8441) rows: checked under that scheme when the scan has its keys, else skipped
   * here (not malformed: another scheme's rows are not this one's junk).
   */
  erc8441: number;
  durationMs: number;
  /** Announcements per second. */
  rate: number;
};

export type ScanResult<A = AnnouncementInput> = {
  discoveries: Discovery<A>[];
  /**
   * The first malformed rows (at most `MALFORMED_LIST_LIMIT`, 100), in batch order, with why each
   * was skipped; `stats.malformed` counts them all.
   */
  malformed: MalformedAnnouncement[];
  stats: ScanStats;
};

/**
 * The keys of one discovery: addresses, `p` when the spending secret was given, and the shared
 * secret (always: {@link completeDiscovery} opens the note with it and drops it unless view-only).
 */
export type FoundKeys = StealthAddress & { stealthSecretKey?: Uint8Array; sharedSecret: Uint8Array };

/**
 * A discovery from found keys and the announcement they came from: opens the announcement's
 * sealed note with `K`, compares its announced stealth address with the derived one, and keeps
 * `sharedSecret` only in view-only scans. Runs once per discovery, never on the scan's hot path.
 */
export function completeDiscovery<A extends AnnouncementInput>(keys: FoundKeys, announcement: A, index: number, viewOnly: boolean): Discovery<A> {
  const { sharedSecret, ...rest } = keys;
  const sealed = typeof announcement === 'object' && announcement !== null ? sealedNoteOf(announcement) : undefined;
  const announced = typeof announcement === 'object' && announcement !== null ? announcedStealthAddressOf(announcement) : undefined;
  return {
    schemeId: 1000,
    ...rest,
    ...(viewOnly ? { sharedSecret } : {}),
    announcement,
    index,
    ...readNote(sharedSecret, sealed),
    stealthAddressMismatch: announced !== undefined && announced.toLowerCase() !== keys.stealthAddress.toLowerCase(),
  };
}

/** Discoveries by position in a packed batch (see `Scanner.scanPacked`). */
export type PackedScanResult = { found: (FoundKeys & { position: number })[]; viewTagMatches: number };

export type Scanner = {
  /** True when no spending secret was given. */
  readonly viewOnly: boolean;
  /**
   * Scan one batch of announcements, in any form of {@link AnnouncementInput} (forms may be
   * mixed). Malformed rows are skipped, counted and listed in `malformed`, or thrown with `strict`.
   * A scheme-3 payment is reported once per scanner, whatever batch replays its announcement
   * (ERC-8441 Section 2.5): scan a registry's pages with one scanner, and make a new one to scan
   * them again.
   */
  scan<A extends AnnouncementInput>(announcements: readonly A[]): ScanResult<A>;
  /**
   * Scan `count` well-formed ciphertexts packed back to back (1088 bytes each) with their
   * announced view tags, without copying: the form scan workers receive. Inputs must already
   * have passed `parseAnnouncement` (length, not all zero, tag range).
   */
  scanPacked(ciphertexts: Uint8Array, viewTags: Uint8Array, count: number): PackedScanResult;
};

export type CreateScannerOptions = {
  /**
   * The per-announcement kernel, a function or a name (see {@link kernelByName}). Default
   * `auto`: the WebAssembly SIMD kernel, else the TypeScript one (K-PKE decryption, full check
   * only after a tag match); both yield the same discoveries as `referenceKernel`.
   */
  kernel?: ScanKernelFactory | ScanKernelName;
  /**
   * `'fast'` (default): the re-encryption check runs only after a view-tag match, so scan time
   * depends on ciphertext contents, which an attacker can choose (crafted tags force the slow
   * path). `'constant'`: the check runs on every announcement — several times slower, and the
   * time no longer depends on which announcements match. Scanning on the user's own device,
   * where nobody else observes the timing, is the recommended setting for `'fast'`.
   *
   * Scheme-3 (ERC-8441) rows likewise: `'fast'` batches them through the WebAssembly secp256k1
   * kernel (its time per row fixed by the viewing scalar's recoding, once per scan) and runs the
   * re-encryption check, offset, point addition and address only after a view-tag match;
   * `'constant'` runs full decapsulation, noble's constant-time ECDH and the offset, point
   * addition and address for every well-formed row (see erc8441-scan.ts).
   */
  mode?: 'fast' | 'constant';
  /**
   * Throw `InvalidAnnouncementError` at the first malformed row, its message naming the row and
   * field (`announcements[3].ephemeralKey must be 1088 bytes, got 12`), instead of skipping it
   * (default false: registries hold junk, which is skipped, counted and listed in `malformed`).
   * For rows the app made itself, where a malformed one is a bug.
   */
  strict?: boolean;
};

/**
 * The kernel a name stands for. `auto` (default) is the fastest this engine runs: WebAssembly
 * SIMD where available (it falls back to TypeScript by itself, e.g. under a CSP without
 * 'wasm-unsafe-eval'), else TypeScript. All give the reference's discoveries.
 */
export function kernelByName(name: ScanKernelName = 'auto'): ScanKernelFactory {
  switch (name) {
    case 'auto':
    case 'wasm':
      return wasmKernel;
    case 'typescript':
      return typescriptKernel;
    case 'reference':
      return referenceKernel;
    default:
      throw new InvalidArgumentError('kernel', "must be 'auto', 'wasm', 'typescript', 'reference' or a kernel function");
  }
}

/** The kernel that actually runs for a name on this engine. */
export type EffectiveKernel = 'wasm' | 'typescript' | 'reference';
export function effectiveKernel(name: ScanKernelName = 'auto'): EffectiveKernel {
  if (name === 'reference') return 'reference';
  if (name === 'typescript') return 'typescript';
  return wasmKernelAvailable() ? 'wasm' : 'typescript';
}

/**
 * Validate keys and prepare per-key work once. The scanner reads rows in every form the SDK and
 * the API give ({@link AnnouncementInput}): registry JSON records (and the `announcement` of a
 * `/stealth/create` response), byte rows (binary pages, chain events) and `createStealthPayment`
 * results.
 *
 * @throws {InvalidKeyError} for a malformed key, {@link KeyMismatchError} when the spending
 * secret does not belong to the spending public key (or the viewing keys to each other);
 * `scan` throws `InvalidAnnouncementError` for a malformed row only with `strict`.
 * @example
 * const scanner = createScanner(keys);
 * for (const page of pages) {
 *   const { discoveries, malformed } = scanner.scan(page);
 *   found.push(...discoveries);
 *   for (const { index, reason } of malformed) console.warn(`row ${index} skipped: ${reason}`);
 * }
 * // Rows the app made itself: a malformed one throws, naming it.
 * createScanner(keys, { strict: true }).scan([createStealthPayment(keys.metaAddress)]);
 */
export function createScanner(keys: ScanKeys, options: CreateScannerOptions = {}): Scanner {
  if (typeof keys !== 'object' || keys === null) throw new InvalidArgumentError('keys', 'must be an object');
  const viewing = parseViewingSecretKey(keys.viewingSecretKey, 'viewing_sk');
  if (keys.viewingPublicKey !== undefined) assertViewingKeyPair(viewing, parseViewingPublicKey(keys.viewingPublicKey));
  const B = parseSpendingPublicKey(keys.spendingPublicKey, 'spending_pk');
  let b: bigint | undefined;
  if (keys.spendingSecretKey !== undefined) {
    b = parseSpendingSecret(keys.spendingSecretKey, 'spending_sk');
    assertSpendingKeyPair(b, toBytes(keys.spendingPublicKey, 'spending_pk'));
  }
  const kernel = (typeof options.kernel === 'function' ? options.kernel : kernelByName(options.kernel))(viewing);
  const constantTime = options.mode === 'constant';
  if (options.mode !== undefined && options.mode !== 'fast' && !constantTime) {
    throw new InvalidArgumentError('mode', "must be 'fast' or 'constant'");
  }
  if (options.strict !== undefined && typeof options.strict !== 'boolean') throw new InvalidArgumentError('strict', 'must be a boolean');
  const strict = options.strict === true;
  const erc8441 = erc8441ScannerOf(keys, b, erc8441ScanOptions(options.kernel, options.mode));
  /** Scheme-3 stealth addresses this scanner has reported. */
  const erc8441Seen = new Set<string>();

  // Announcements go through the kernel in chunks, so batch kernels (SIMD lanes) get full groups.
  const packed = new Uint8Array(CHUNK * CIPHERTEXT_BYTES);
  const announcedTags = new Uint8Array(CHUNK);
  const indices = new Uint32Array(CHUNK);
  const candidates = new Uint8Array(CHUNK * SHARED_SECRET_BYTES);
  const tags = new Uint8Array(CHUNK);

  function keysFor(candidate: Uint8Array): FoundKeys {
    const tweak = deriveStealthTweak(candidate);
    const sharedSecret = candidate.slice();
    return b === undefined
      ? { ...stealthAddressOf(stealthPointFrom(B, tweak)), sharedSecret }
      : { ...deriveStealthKeysFor(b, B, tweak), sharedSecret };
  }

  /**
   * Kernel, view-tag comparison and confirmation for `count` (<= CHUNK) well-formed ciphertexts
   * packed back to back in `ciphertexts`; calls `found` for each discovery. Returns the number of
   * view-tag matches.
   */
  function scanPackedChunk(ciphertexts: Uint8Array, announced: Uint8Array, count: number, found: (k: number, keys: FoundKeys) => void): number {
    if (kernel.candidates) {
      kernel.candidates(ciphertexts, count, candidates, tags);
    } else {
      for (let k = 0; k < count; k++) {
        const c = ciphertexts.subarray(k * CIPHERTEXT_BYTES, (k + 1) * CIPHERTEXT_BYTES);
        tags[k] = kernel.candidate(c, candidates.subarray(k * SHARED_SECRET_BYTES, (k + 1) * SHARED_SECRET_BYTES));
      }
    }
    let matches = 0;
    for (let k = 0; k < count; k++) {
      const tagMatches = tags[k] === announced[k];
      // 'constant' runs the confirmation whatever the tag (see CreateScannerOptions.mode).
      if (!tagMatches && !constantTime) continue;
      const c = ciphertexts.subarray(k * CIPHERTEXT_BYTES, (k + 1) * CIPHERTEXT_BYTES);
      const candidate = candidates.subarray(k * SHARED_SECRET_BYTES, (k + 1) * SHARED_SECRET_BYTES);
      const confirmed = kernel.confirm(c, candidate);
      if (!tagMatches) continue;
      matches++;
      if (confirmed) found(k, keysFor(candidate));
    }
    return matches;
  }

  function scan<A extends AnnouncementInput>(announcements: readonly A[]): ScanResult<A> {
    if (!Array.isArray(announcements)) throw new InvalidArgumentError('announcements', 'must be an array');
    const started = performance.now();
    const discoveries: Discovery<A>[] = [];
    const malformedRows: MalformedAnnouncement[] = [];
    let erc8441Rows = 0;
    // Scheme-3 rows are checked together after the packing, so the batched ECDH gets full batches.
    const erc8441Pending: { index: number; row: Erc8441Row }[] = [];
    const packOptions = {
      malformed: malformedRows,
      strict,
      erc8441: (index: number, row: Erc8441Row) => {
        erc8441Rows++;
        if (erc8441 !== undefined) erc8441Pending.push({ index, row });
      },
    };
    let viewTagMatches = 0;
    let malformed = 0;
    for (let start = 0; start < announcements.length; start += CHUNK) {
      const end = Math.min(announcements.length, start + CHUNK);
      const before = erc8441Rows;
      const count = packAnnouncements(announcements, start, end, packed, announcedTags, indices, packOptions);
      malformed += end - start - count - (erc8441Rows - before);
      viewTagMatches += scanPackedChunk(packed, announcedTags, count, (k, keys) => {
        const index = indices[k]!;
        discoveries.push(completeDiscovery(keys, announcements[index]!, index, b === undefined));
      });
    }
    if (erc8441 !== undefined && erc8441Pending.length > 0) {
      const checks = erc8441.checkBatch(erc8441Pending.map(({ row }) => row));
      erc8441Pending.forEach(({ index, row }, k) => {
        const found = checks[k]!;
        // The view tag matched when the check went past it.
        if (found.match || found.reason === 'offset_out_of_range' || found.reason === 'address_mismatch') viewTagMatches++;
        if (!found.match) return;
        // Anyone can replay an announcement: a stealth address is reported once by this scanner,
        // over all its batches (ERC-8441 Section 2.5; the earliest row in scan order is kept).
        if (erc8441Seen.has(found.stealthAddress)) return;
        erc8441Seen.add(found.stealthAddress);
        discoveries.push(erc8441Discovery(found.sharedSecret, found.stealthAddress, row, announcements[index]!, index, erc8441, b));
      });
      discoveries.sort((x, y) => x.index - y.index); // batch order, whatever the scheme
    }
    const durationMs = performance.now() - started;
    const totalScanned = announcements.length;
    return {
      discoveries,
      malformed: malformedRows,
      stats: {
        totalScanned,
        viewTagMatches,
        discoveries: discoveries.length,
        malformed,
        erc8441: erc8441Rows,
        durationMs,
        rate: durationMs > 0 ? (totalScanned * 1000) / durationMs : 0,
      },
    };
  }

  function scanPacked(ciphertexts: Uint8Array, viewTags: Uint8Array, count: number): PackedScanResult {
    if (ciphertexts.length < count * CIPHERTEXT_BYTES || viewTags.length < count) {
      throw new InvalidArgumentError('ciphertexts', 'holds fewer ciphertexts or tags than count');
    }
    const found: PackedScanResult['found'] = [];
    let viewTagMatches = 0;
    for (let start = 0; start < count; start += CHUNK) {
      const end = Math.min(count, start + CHUNK);
      viewTagMatches += scanPackedChunk(
        ciphertexts.subarray(start * CIPHERTEXT_BYTES, end * CIPHERTEXT_BYTES),
        viewTags.subarray(start, end),
        end - start,
        (k, keys) => found.push({ ...keys, position: start + k }),
      );
    }
    return { found, viewTagMatches };
  }

  return { viewOnly: b === undefined, scan, scanPacked };
}

/**
 * The scheme-3 options that go with a scan's kernel and mode: the batched WebAssembly ECDH with
 * the WebAssembly kernel, noble's with 'typescript' and 'reference' (the reference kernel's
 * full decapsulation makes that path the ERC's Section 2.5 exactly).
 * @internal Scan workers make their scheme-3 scanner with it.
 */
export function erc8441ScanOptions(kernel: CreateScannerOptions['kernel'], mode: CreateScannerOptions['mode']): Erc8441ScannerOptions {
  const factory = typeof kernel === 'function' ? kernel : kernelByName(kernel);
  const wasm = typeof kernel === 'function' ? kernel === wasmKernel : effectiveKernel(kernel) === 'wasm';
  return { kernel: factory, ecdh: wasm ? 'wasm' : 'typescript', ...(mode === 'constant' ? { mode: 'constant' as const } : {}) };
}

/**
 * The ERC-8441 keys of a scan: given, derived from the identity (PROTOCOL.md section 10), or none.
 * @internal The scan pool sends them to its workers.
 */
export function erc8441KeysOfScan(keys: ScanKeys): { trackingKey: BytesInput; metaAddress: BytesInput } | undefined {
  if (keys.erc8441 !== undefined) return keys.erc8441;
  if (keys.viewingSeed === undefined || keys.spendingSecretKey === undefined) return undefined;
  const derived = erc8441KeysOf({ spendingSecretKey: keys.spendingSecretKey, viewingSeed: keys.viewingSeed });
  return { trackingKey: derived.trackingKey, metaAddress: derived.metaAddress };
}

function erc8441ScannerOf(keys: ScanKeys, b: bigint | undefined, options: Erc8441ScannerOptions): Erc8441Scanner | undefined {
  if (keys.erc8441 === undefined && b === undefined) return undefined;
  const erc8441Keys = erc8441KeysOfScan(keys);
  return erc8441Keys === undefined ? undefined : createErc8441Scanner({ ...erc8441Keys, ...options });
}

/**
 * A scheme-3 discovery: the announced address (which decided it), the one-time key when the
 * spending secret is known, else `ss` (never both: together they give the spending key, ERC-8441
 * Section 2.6), and the note sealed with `ss` when what follows the row's view tag is one (92 or
 * 112 bytes, PROTOCOL.md section 10; other bytes there are no note).
 * @internal The scan pool completes its workers' scheme-3 matches with it.
 */
export function erc8441Discovery<A extends AnnouncementInput>(
  ss: Uint8Array,
  stealthAddress: string,
  row: Erc8441Row,
  announcement: A,
  index: number,
  scanner: Pick<Erc8441Scanner, 'meta'>,
  b: bigint | undefined,
): Discovery<A> {
  const tail = row.metadata.subarray(1);
  const common = { schemeId: 3 as const, announcement, index, ...readNote(ss, isSealedNoteLength(tail.length) ? tail : undefined), stealthAddressMismatch: false } satisfies Partial<Discovery<A>>;
  if (b === undefined) {
    const spending = Point.fromBytes(scanner.meta.spendingPublicKey);
    // A match passed the offset's range check (ERC-8441 Section 1), so it is a valid scalar.
    const addresses = stealthAddressOf(spending.add(Point.BASE.multiply(erc8441Offset(ss)!)));
    return { ...addresses, ...common, sharedSecret: ss.slice() };
  }
  const key = erc8441StealthKey({ spendingSecretKey: scalarToBytes(b), sharedSecret: ss, stealthAddress });
  return { ...stealthAddressOf(Point.BASE.multiply(bytesToBigInt(key))), ...common, stealthSecretKey: key };
}

/**
 * Scan a batch of announcements once (any form of {@link AnnouncementInput}). For repeated
 * batches prefer {@link createScanner}, which validates and prepares the keys only once.
 *
 * @example
 * const { discoveries, malformed } = scanAnnouncements(keys, registryRows);
 * for (const d of discoveries) console.log(d.stealthAddress, d.announcement.tx_hash);
 * if (malformed.length > 0) console.warn('skipped', malformed); // [{ index: 3, reason: 'view_tag must be ...' }]
 */
export function scanAnnouncements<A extends AnnouncementInput>(
  keys: ScanKeys,
  announcements: readonly A[],
  options: CreateScannerOptions = {},
): ScanResult<A> {
  return createScanner(keys, options).scan(announcements);
}
