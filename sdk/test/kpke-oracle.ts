/**
 * A straightforward K-PKE decryption (FIPS 203 Algorithm 15) sharing no code with the fast ones:
 * s_hat goes back to s with a fully reduced inverse NTT, and s·u is a schoolbook negacyclic
 * convolution in Z_q[X]/(X^256 + 1), so an NTT bug and its inverse cannot cancel out. The
 * oracle of the kernel tests.
 */
import { bytesToHex } from '../src/index.ts';

const Q = 3329;
/** x mod q in [0, q). */
export const mod = (x: number) => ((x % Q) + Q) % Q;

function zetas(): number[] {
  const out: number[] = [];
  for (let i = 0; i < 128; i++) {
    let e = 0;
    for (let b = 0; b < 7; b++) e |= ((i >> b) & 1) << (6 - b);
    let r = 1;
    for (let j = 0; j < e; j++) r = (r * 17) % Q;
    out.push(r);
  }
  return out;
}
const Z = zetas();

/** FIPS 203 Algorithm 10 with every operation reduced. */
function inverseNttReduced(fIn: number[]): number[] {
  const f = fIn.map(mod);
  let k = 127;
  for (let len = 2; len <= 128; len *= 2) {
    for (let start = 0; start < 256; start += 2 * len) {
      const zeta = Z[k--]!;
      for (let j = start; j < start + len; j++) {
        const t = f[j]!;
        f[j] = mod(t + f[j + len]!);
        f[j + len] = mod(zeta * mod(f[j + len]! - t));
      }
    }
  }
  return f.map((x) => mod(x * 3303));
}

function schoolbookNegacyclic(a: number[], b: number[]): number[] {
  const out = new Array<number>(256).fill(0);
  for (let i = 0; i < 256; i++) {
    for (let j = 0; j < 256; j++) {
      const p = (a[i]! * b[j]!) % Q;
      const k = i + j;
      if (k < 256) out[k] = (out[k]! + p) % Q;
      else out[k - 256] = mod(out[k - 256]! - p);
    }
  }
  return out;
}

function decodeBits(bytes: Uint8Array, bits: number, count: number, offset = 0): number[] {
  const out: number[] = [];
  let acc = 0n;
  let have = 0;
  let pos = offset;
  while (out.length < count) {
    while (have < bits) {
      acc |= BigInt(bytes[pos++]!) << BigInt(have);
      have += 8;
    }
    out.push(Number(acc & ((1n << BigInt(bits)) - 1n)));
    acc >>= BigInt(bits);
    have -= bits;
  }
  return out;
}

/** Straightforward FIPS 203 Algorithm 15: m' as hex. */
export function referenceDecrypt(dkPke: Uint8Array, c: Uint8Array): string {
  const sHat = decodeBits(dkPke, 12, 768).map(mod);
  const s = [0, 1, 2].map((i) => inverseNttReduced(sHat.slice(256 * i, 256 * i + 256)));
  const u = [0, 1, 2].map((i) => decodeBits(c, 10, 256, 320 * i).map((y) => Math.round((Q * y) / 1024)));
  const v = decodeBits(c, 4, 256, 960).map((y) => Math.round((Q * y) / 16));
  const su = [0, 1, 2].map((i) => schoolbookNegacyclic(s[i]!, u[i]!));
  const w = v.map((vj, j) => mod(vj - su[0]![j]! - su[1]![j]! - su[2]![j]!));
  const m = new Uint8Array(32);
  w.forEach((wj, j) => {
    const bit = Math.round((2 * wj) / Q) % 2;
    m[j >> 3] = m[j >> 3]! | (bit << (j & 7));
  });
  return bytesToHex(m);
}

