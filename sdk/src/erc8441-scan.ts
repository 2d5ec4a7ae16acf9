/**
 * The ERC-8441 scanner and one-time key (schemeId 3, the ERC's Sections 2.5-2.7).
 *
 * For each announcement: `ss_ec = ECDH(viewing_ec, epk).x`, `ss_pq = Decaps(dk, ct)`, `ss` by the
 * hybrid combiner; the view tag only lets 255 of 256 foreign announcements skip the point
 * arithmetic, and the announced `stealthAddress` decides: a row whose derived address differs is
 * skipped, never reported (decapsulation never fails, so it is never a match by itself). Every
 * malformed announcement is a skip with its reason, never an exception: `announce()` is
 * permissionless, and a scanner that throws on a shape stops at the first junk event.
 *
 * Two paths, the same discoveries for every announcement a sender without the tracking key can
 * make (see `checkFast` for the one difference):
 *
 * - fast (default): announcements are checked in batches (`checkBatch`; `check` is a batch of
 *   one). `ss_ec` comes from the WebAssembly secp256k1 batch (erc8441-ecdh.ts, 256 announcements
 *   in lockstep) where WebAssembly SIMD runs, else noble; `ss_pq` is the ML-KEM kernel's
 *   candidate `K'`, as for scheme 1000; the combiner's SHA3-256 runs in WebAssembly too. After a
 *   view-tag match only: the re-encryption check, then the offset, the point addition and the
 *   address.
 * - `mode: 'constant'`: the ERC's Section 2.5 as written, with noble's constant-time ECDH and
 *   full decapsulation (re-encryption and implicit rejection for every announcement), and the
 *   offset, point addition and address computed for every well-formed announcement whatever its
 *   view tag; the decision is taken at the end.
 *
 * Timing of the fast path: the ECDH's sequence of field operations is fixed by the viewing
 * scalar's recoding, once per scan, and is the same for every announcement (the arithmetic is
 * constant-time); the length of that sequence, so the time per announcement of a whole scan,
 * depends on the scalar (its GLV halves' nonzero wNAF digits). The epk's square test is
 * variable-time on the epk, which is public. What follows a view-tag match (re-encryption check,
 * offset, point addition, address) runs only then, so a scan's duration reveals how many rows
 * passed the view tag (about 1 in 256 foreign rows, more when a sender crafts them), not which
 * ones matched. `mode: 'constant'` removes the dependence on matches and on the ciphertexts:
 * every well-formed announcement costs the same work; malformed ones (wrong length, an epk that
 * is no point: public facts) are skipped early in both modes.
 * @module
 */
import { evmAddressOf } from './address.ts';
import { equalBytes, toBytes, type BytesInput } from './bytes.ts';
import { InvalidArgumentError, KeyMismatchError } from './errors.ts';
import { parseTrackingKey } from './erc8441-keys.ts';
import { decodeErc8441MetaAddress, erc8441Points, type Erc8441MetaAddress } from './erc8441-meta-address.ts';
import { createTypescriptEcdhX, type EcdhXBatch } from './erc8441-ecdh.ts';
import { ecdhX, ERC8441_EPHEMERAL_KEY_BYTES, erc8441Offset, erc8441ViewTag, hybridCombine, splitErc8441EphemeralKey } from './erc8441-payment.ts';
import { createWasmErc8441Core } from './erc8441-scan-wasm.ts';
import type { ScanKernel, ScanKernelFactory } from './scan-kernel.ts';
import { wasmKernel } from './scan-kernel-wasm.ts';
import { compressedPointOrNull, CURVE_ORDER, parseSpendingSecret, Point, scalarToBytes, type CurvePoint } from './spending-key.ts';
import { CIPHERTEXT_BYTES, decapsulate, implicitRejectionKey, parseViewingSecretKey, viewingKeyPairFromSeed } from './viewing-key.ts';

/** Why an announcement was skipped (the ERC's Section 2.7). */
export type Erc8441SkipReason = 'malformed' | 'invalid_epk' | 'view_tag' | 'offset_out_of_range' | 'address_mismatch';

/** A scheme-3 announcement as the chain holds it. */
export type Erc8441Announcement = {
  /** `epk || ct`, 1121 bytes. */
  ephemeralPubKey: Uint8Array;
  /** The announcement's metadata: the view tag first, anything after it. */
  metadata: Uint8Array;
  /** The announced one-time address (any case). */
  stealthAddress: string;
};

export type Erc8441Check = { match: true; stealthAddress: string; sharedSecret: Uint8Array; viewTag: number } | { match: false; reason: Erc8441SkipReason };

/** A tracking key checked against its meta-address, expanded once for a scan. */
export type Erc8441Scanner = {
  readonly meta: Erc8441MetaAddress;
  /** Check one announcement; never throws for an announcement's content. */
  check(announcement: Erc8441Announcement): Erc8441Check;
  /**
   * Check many announcements at once, result i for announcement i: the same results as `check`
   * one by one, batched (the WebAssembly path computes up to 256 ECDHs in lockstep, so batches
   * of hundreds are much faster per announcement than single calls).
   */
  checkBatch(announcements: readonly Erc8441Announcement[]): Erc8441Check[];
};

/** How a scheme-3 scan runs (see the module's notes on timing). */
export type Erc8441ScannerOptions = {
  /**
   * The ML-KEM kernel computing `ss_pq` candidates (`K'`, confirmed after a view-tag match), as
   * for scheme 1000. Default {@link wasmKernel} (TypeScript where WebAssembly SIMD is unavailable).
   */
  kernel?: ScanKernelFactory;
  /**
   * The secp256k1 engine of `checkBatch`: `'wasm'` (default; the batched WebAssembly path where
   * WebAssembly SIMD runs, else TypeScript) or `'typescript'` (noble, one key at a time).
   */
  ecdh?: 'wasm' | 'typescript';
  /**
   * `'fast'` (default) or `'constant'`: every announcement through full decapsulation (implicit
   * rejection included), noble's constant-time ECDH, the combiner, and the offset, point
   * addition and address whatever its view tag, so the time per well-formed announcement does
   * not depend on which ones match.
   */
  mode?: 'fast' | 'constant';
};

/** Parameters of {@link createErc8441Scanner}. */
export type CreateErc8441ScannerParameters = Erc8441ScannerOptions & {
  /** `viewing_ec || d || z`, 96 bytes. */
  trackingKey: BytesInput;
  /** The recipient's registered 1250-byte meta-address, raw or decoded. */
  metaAddress: BytesInput | Erc8441MetaAddress;
};

/** Announcements per batch of the secp256k1 kernel (its EC_MAX_BATCH). */
const BATCH = 256;

/**
 * Prepare a scan with a tracking key (`viewing_ec || d || z`, 96 bytes) and the recipient's
 * registered meta-address. The key is checked against the meta-address first (`viewing_ec·G`
 * and `ek`, the ERC's Section 2.5): a corrupted key would otherwise find nothing, silently.
 * @example
 * const scanner = createErc8441Scanner({ trackingKey, metaAddress });
 * const found = scanner.checkBatch(announcements).filter((result) => result.match);
 * @throws {InvalidArgumentError} (code INVALID_ARGUMENT) when `mode` or `ecdh` is not one of its values.
 * @throws {KeyMismatchError} (code KEY_MISMATCH) when the tracking key is not the meta-address's.
 */
export function createErc8441Scanner(parameters: CreateErc8441ScannerParameters): Erc8441Scanner {
  // A typo ('Constant') must not fall back to the variable-time path silently.
  if (parameters.mode !== undefined && parameters.mode !== 'fast' && parameters.mode !== 'constant') {
    throw new InvalidArgumentError('mode', "must be 'fast' or 'constant'");
  }
  if (parameters.ecdh !== undefined && parameters.ecdh !== 'wasm' && parameters.ecdh !== 'typescript') {
    throw new InvalidArgumentError('ecdh', "must be 'wasm' or 'typescript'");
  }
  const meta = typeof parameters.metaAddress === 'object' && !(parameters.metaAddress instanceof Uint8Array) ? parameters.metaAddress : decodeErc8441MetaAddress(parameters.metaAddress);
  const { viewingScalar, kemSeed } = parseTrackingKey(parameters.trackingKey);
  const { publicKey: ek, secretKey: dk } = viewingKeyPairFromSeed(kemSeed);
  if (!equalBytes(Point.BASE.multiply(viewingScalar).toBytes(true), meta.viewingPublicKeyEc) || !equalBytes(ek, meta.encapsulationKey)) {
    throw new KeyMismatchError('tracking_key', 'the tracking key does not belong to this meta-address (viewing_ec·G or ek differ)');
  }
  const { spending } = erc8441Points(meta);
  const viewing = parseViewingSecretKey(dk);
  const key: Erc8441ScanKey = { viewingScalar, dk, z: viewing.z, spending, meta };
  if (parameters.mode === 'constant') {
    return { meta, check: (a) => checkConstant(a, key), checkBatch: (all) => all.map((a) => checkConstant(a, key)) };
  }
  const kernel = (parameters.kernel ?? wasmKernel)(viewing);
  const single: Erc8441Engine = { kernel, ecdh: createTypescriptEcdhX(viewingScalar), combine: combineTypescript(meta) };
  // A batch of one would pay the lockstep's per-step inversions alone: single checks use noble.
  // The WebAssembly instance (its own memory) is made on the first batch, so `check` alone never pays for it.
  let batched: Erc8441Engine | undefined;
  const batchEngine = (): Erc8441Engine => {
    if (batched === undefined) {
      const wasm = parameters.ecdh === 'typescript' ? null : createWasmErc8441Core(viewingScalar, meta.viewingPublicKeyEc, meta.encapsulationKey);
      batched = wasm ? { kernel, ecdh: wasm.ecdh, combine: wasm.combine } : single;
    }
    return batched;
  };
  return {
    meta,
    check: (announcement) => checkFast([announcement], key, single)[0]!,
    checkBatch: (announcements) => checkFast(announcements, key, batchEngine()),
  };
}

type Erc8441ScanKey = { viewingScalar: bigint; dk: Uint8Array; z: Uint8Array; spending: CurvePoint; meta: Erc8441MetaAddress };

/** The three batched parts of the fast path. */
type Erc8441Engine = {
  kernel: ScanKernel;
  ecdh: EcdhXBatch;
  /** `ss` of each announcement to `out` (32 bytes each), its view tag to `tags`. */
  combine(ssEc: Uint8Array, ssPq: Uint8Array, ephemeralKeys: readonly Uint8Array[], count: number, out: Uint8Array, tags: Uint8Array): void;
};

function combineTypescript(meta: Erc8441MetaAddress): Erc8441Engine['combine'] {
  return (ssEc, ssPq, ephemeralKeys, count, out, tags) => {
    for (let i = 0; i < count; i++) {
      const { epk, ciphertext } = splitErc8441EphemeralKey(ephemeralKeys[i]!);
      const parts = { ssEc: ssEc.subarray(32 * i, 32 * i + 32), ssPq: ssPq.subarray(32 * i, 32 * i + 32), epk, ciphertext };
      const ss = hybridCombine({ ...parts, viewingPublicKeyEc: meta.viewingPublicKeyEc, encapsulationKey: meta.encapsulationKey });
      out.set(ss, 32 * i);
      tags[i] = erc8441ViewTag(ss);
    }
  };
}

/** The shape checks of the ERC's Section 2.7 that need no arithmetic; null when the row goes on. */
function shapeSkip(announcement: Erc8441Announcement): Erc8441Check | null {
  const { ephemeralPubKey, metadata, stealthAddress } = announcement;
  if (!(ephemeralPubKey instanceof Uint8Array) || !(metadata instanceof Uint8Array) || typeof stealthAddress !== 'string') return { match: false, reason: 'malformed' };
  if (ephemeralPubKey.length !== ERC8441_EPHEMERAL_KEY_BYTES || metadata.length === 0) return { match: false, reason: 'malformed' };
  if (ephemeralPubKey[0] !== 0x02 && ephemeralPubKey[0] !== 0x03) return { match: false, reason: 'invalid_epk' };
  return null;
}

/**
 * The fast path: `ss_pq` is the kernel's candidate `K'` (K-PKE decryption and `SHA3-512(m' ||
 * H(ek))`, equal to `Decaps` for every ciphertext that passes FIPS 203's re-encryption check).
 * After a view-tag match only, the re-encryption check decides: a ciphertext that fails it
 * decapsulates to the implicit-rejection key `J(z || c)`, so `ss` is recomputed with that and
 * its view tag compared again. What this skips without checking: a ciphertext failing the
 * re-encryption check whose implicit-rejection `ss` would match the view tag and the address.
 * Building one needs `z`, i.e. the tracking key: nobody else can pay the recipient that way, and
 * `mode: 'constant'` (full decapsulation) finds even those.
 */
function checkFast(announcements: readonly Erc8441Announcement[], key: Erc8441ScanKey, engine: Erc8441Engine): Erc8441Check[] {
  const results: Erc8441Check[] = new Array(announcements.length);
  const pending: number[] = [];
  announcements.forEach((announcement, i) => {
    const skip = shapeSkip(announcement);
    if (skip) results[i] = skip;
    else pending.push(i);
  });
  for (let start = 0; start < pending.length; start += BATCH) {
    const rows = pending.slice(start, start + BATCH);
    const count = rows.length;
    const xs = new Uint8Array(32 * count);
    const ciphertexts = new Uint8Array(CIPHERTEXT_BYTES * count);
    const ephemeralKeys = rows.map((i) => announcements[i]!.ephemeralPubKey);
    ephemeralKeys.forEach((ephemeralKey, k) => {
      xs.set(ephemeralKey.subarray(1, 33), 32 * k);
      ciphertexts.set(ephemeralKey.subarray(33), CIPHERTEXT_BYTES * k);
    });
    const ssEc = new Uint8Array(32 * count);
    const status = new Uint8Array(count);
    engine.ecdh.run(xs, count, ssEc, status);
    const ssPq = new Uint8Array(32 * count);
    const tags = new Uint8Array(count);
    if (engine.kernel.candidates) engine.kernel.candidates(ciphertexts, count, ssPq, tags);
    else for (let k = 0; k < count; k++) engine.kernel.candidate(ciphertexts.subarray(CIPHERTEXT_BYTES * k, CIPHERTEXT_BYTES * (k + 1)), ssPq.subarray(32 * k, 32 * k + 32));
    const ss = new Uint8Array(32 * count);
    const ssTags = new Uint8Array(count);
    engine.combine(ssEc, ssPq, ephemeralKeys, count, ss, ssTags);
    rows.forEach((i, k) => {
      const announcement = announcements[i]!;
      if (status[k] !== 0) {
        results[i] = { match: false, reason: 'invalid_epk' };
        return;
      }
      let secret: Uint8Array = ss.subarray(32 * k, 32 * k + 32);
      if (ssTags[k] !== announcement.metadata[0]) {
        results[i] = { match: false, reason: 'view_tag' };
        return;
      }
      const ciphertext = ciphertexts.subarray(CIPHERTEXT_BYTES * k, CIPHERTEXT_BYTES * (k + 1));
      if (!engine.kernel.confirm(ciphertext, ssPq.subarray(32 * k, 32 * k + 32))) {
        // Decaps rejects this ciphertext implicitly: ss_pq is J(z || c) (FIPS 203 Algorithm 18).
        const { epk } = splitErc8441EphemeralKey(announcement.ephemeralPubKey);
        const rejected = implicitRejectionKey(key.z, ciphertext);
        secret = hybridCombine({ ssEc: ssEc.subarray(32 * k, 32 * k + 32), ssPq: rejected, epk, ciphertext, viewingPublicKeyEc: key.meta.viewingPublicKeyEc, encapsulationKey: key.meta.encapsulationKey });
      }
      results[i] = decide(announcement, secret.slice(), key.spending);
    });
  }
  return results;
}

/** The view tag, the offset's range check and the announced address (the ERC's Section 2.5). */
function decide(announcement: Erc8441Announcement, ss: Uint8Array, spending: CurvePoint): Erc8441Check {
  const viewTag = erc8441ViewTag(ss);
  if (viewTag !== announcement.metadata[0]) return { match: false, reason: 'view_tag' };
  const offset = erc8441Offset(ss);
  if (offset === null) return { match: false, reason: 'offset_out_of_range' };
  const address = evmAddressOf(spending.add(Point.BASE.multiply(offset)));
  if (address.toLowerCase() !== announcement.stealthAddress.toLowerCase()) return { match: false, reason: 'address_mismatch' };
  return { match: true, stealthAddress: address, sharedSecret: ss, viewTag };
}

/**
 * `mode: 'constant'`: the ERC's Section 2.5 exactly (full decapsulation, noble's ECDH) with no
 * view-tag gate: the offset, the point addition and the address are computed for every
 * well-formed announcement, and the decision is made at the end.
 */
function checkConstant(announcement: Erc8441Announcement, key: Erc8441ScanKey): Erc8441Check {
  const skip = shapeSkip(announcement);
  if (skip) return skip;
  const { epk, ciphertext } = splitErc8441EphemeralKey(announcement.ephemeralPubKey);
  const ephemeral = compressedPointOrNull(epk);
  if (ephemeral === null) return { match: false, reason: 'invalid_epk' }; // public: the epk is on chain
  const ss = hybridCombine({
    ssEc: ecdhX(key.viewingScalar, ephemeral),
    ssPq: decapsulate(ciphertext, key.dk),
    epk,
    ciphertext,
    viewingPublicKeyEc: key.meta.viewingPublicKeyEc,
    encapsulationKey: key.meta.encapsulationKey,
  });
  const viewTag = erc8441ViewTag(ss);
  const offset = erc8441Offset(ss);
  // An offset out of range (probability below 2^-127) still computes a point, with 1.
  const address = evmAddressOf(key.spending.add(Point.BASE.multiply(offset ?? 1n)));
  if (viewTag !== announcement.metadata[0]) return { match: false, reason: 'view_tag' };
  if (offset === null) return { match: false, reason: 'offset_out_of_range' };
  if (address.toLowerCase() !== announcement.stealthAddress.toLowerCase()) return { match: false, reason: 'address_mismatch' };
  return { match: true, stealthAddress: address, sharedSecret: ss, viewTag };
}

/**
 * The one-time key of a found payment (the ERC's Section 2.6): `(spending_sk + H(ss)) mod n`,
 * checked to give `stealthAddress` when it is passed. Never disclose it together with its `ss`:
 * the two give the spending key.
 * @throws {KeyMismatchError} when the key does not give `stealthAddress`.
 */
export function erc8441StealthKey(parameters: { spendingSecretKey: BytesInput; sharedSecret: BytesInput; stealthAddress?: string }): Uint8Array {
  const b = parseSpendingSecret(parameters.spendingSecretKey, 'spendingSecretKey');
  const offset = erc8441Offset(toBytes(parameters.sharedSecret, 'sharedSecret', 32));
  if (offset === null) throw new KeyMismatchError('sharedSecret', 'its offset is outside the scalar range: no payment uses it');
  const p = (b + offset) % CURVE_ORDER;
  if (p === 0n) throw new KeyMismatchError('sharedSecret', 'the one-time key would be zero'); // probability 2^-256
  if (parameters.stealthAddress !== undefined && evmAddressOf(Point.BASE.multiply(p)).toLowerCase() !== parameters.stealthAddress.toLowerCase()) {
    throw new KeyMismatchError('spendingSecretKey', 'the one-time key does not give the stealth address');
  }
  return scalarToBytes(p);
}
