/**
 * The per-announcement work of scanning, behind one small interface so that faster kernels
 * (K-PKE decryption only, WebAssembly SIMD) can replace the reference without touching the
 * scanner. PROTOCOL.md section 5 splits the work in two:
 *
 * 1. `candidate(c, out)`: the candidate shared secret `K'` (written to `out`) and its view tag,
 *    compared with the announced one (runs for every announcement);
 * 2. `confirm(c, K')`: after a tag match only, whether `c` passes the FIPS 203 re-encryption
 *    check for this key and `K'` is its shared secret. A ciphertext that fails is never a
 *    discovery.
 *
 * The reference kernel is full ML-KEM decapsulation: it yields `K` for honest ciphertexts and
 * the implicit-rejection key `Kbar = SHAKE256(z || c)` otherwise, so confirmation is
 * `K' != Kbar`. It is slow (one re-encryption per announcement) and serves as the oracle.
 * @module
 */
import { equalBytes } from './bytes.ts';
import { InvalidArgumentError } from './errors.ts';
import { computeViewTag } from './view-tag.ts';
import {
  CIPHERTEXT_BYTES,
  decapsulate,
  implicitRejectionKey,
  SHARED_SECRET_BYTES,
  type ViewingSecretKeyParts,
} from './viewing-key.ts';

export interface ScanKernel {
  /** Writes the candidate shared secret `K'` of a 1088-byte ciphertext to `out` (32 bytes); returns its view tag. */
  candidate(ciphertext: Uint8Array, out: Uint8Array): number;
  /**
   * Optional batch form of `candidate` for kernels that process several announcements at once
   * (SIMD lanes): `ciphertexts` holds `count` ciphertexts of 1088 bytes back to back; the
   * candidates go to `candidates` (32 bytes each, same order) and their view tags to `tags`.
   * Must give exactly what `candidate` gives one by one.
   */
  candidates?(ciphertexts: Uint8Array, count: number, candidates: Uint8Array, tags: Uint8Array): void;
  /** Whether `ciphertext` passes the re-encryption check with shared secret `candidate` (only after a tag match). */
  confirm(ciphertext: Uint8Array, candidate: Uint8Array): boolean;
}

/**
 * The checks every `candidates` implementation makes before touching its buffers.
 * @throws {InvalidArgumentError} when `count` is not a non-negative integer or a buffer is
 * shorter than `count` announcements.
 */
export function assertBatchBuffers(ciphertexts: Uint8Array, count: number, candidates: Uint8Array, tags?: Uint8Array): void {
  if (!Number.isInteger(count) || count < 0) throw new InvalidArgumentError('count', 'must be a non-negative integer');
  if (ciphertexts.length < count * CIPHERTEXT_BYTES || candidates.length < count * SHARED_SECRET_BYTES || (tags && tags.length < count)) {
    throw new InvalidArgumentError('ciphertexts', 'buffers are shorter than count announcements');
  }
}

/** Prepares a kernel for one viewing key (per-key work happens here, once). */
export type ScanKernelFactory = (viewingKey: ViewingSecretKeyParts) => ScanKernel;

/** Full decapsulation, then `K' != Kbar` (PROTOCOL.md section 5 step 3, the library form). */
export const referenceKernel: ScanKernelFactory = ({ dk, z }) => ({
  candidate(ciphertext, out) {
    const shared = decapsulate(ciphertext, dk);
    out.set(shared);
    return computeViewTag(shared);
  },
  confirm: (ciphertext, candidate) => !equalBytes(candidate, implicitRejectionKey(z, ciphertext)),
});

/** Kernels by name, for places where a function cannot travel (worker messages, settings). */
export type ScanKernelName = 'auto' | 'wasm' | 'typescript' | 'reference';
