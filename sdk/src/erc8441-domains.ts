/**
 * The hybrid combiner's domain separator (ERC-8441 Section 1.1), 28 bytes: written by the
 * TypeScript combiner (erc8441-payment.ts) and by the WebAssembly one (erc8441-scan-wasm.ts).
 * Internal: not exported from the package.
 * @module
 */
export const HYBRID_DS = new TextEncoder().encode('pq-stealth/hybrid-payment/v1');
