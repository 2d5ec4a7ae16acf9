import { describe, expect, it } from 'vitest';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { checksumAddressOfBytes } from '../src/address.ts';
import { bytesToHex, checksumProblem, toChecksumAddress } from '../src/index.ts';

/** EIP-55 as its text defines it, on the generic hash object. */
function reference(address: string): string {
  const lower = address.toLowerCase().replace(/^0x/, '');
  const hash = bytesToHex(keccak_256(new TextEncoder().encode(lower)));
  return '0x' + [...lower].map((c, i) => (parseInt(hash[i]!, 16) >= 8 ? c.toUpperCase() : c)).join('');
}

describe('toChecksumAddress (EIP-55)', () => {
  it("reproduces the EIP's own examples from any case", () => {
    for (const address of [
      '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
      '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
      '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
      '0x52908400098527886E0F7030069857D2E4169EE7',
      '0xde709f2102306220921060314715629080e2fb77',
    ]) {
      const expected = address === address.toLowerCase() ? reference(address) : address;
      expect(toChecksumAddress(address.toLowerCase())).toBe(expected);
      expect(toChecksumAddress(address.toUpperCase().replace('0X', '0x'))).toBe(expected);
      expect(toChecksumAddress(address.slice(2))).toBe(expected);
      expect(toChecksumAddress(`0X${address.slice(2).toUpperCase()}`)).toBe(expected);
    }
  });

  it('agrees with the generic hash on random addresses, one call after another (the reused state is reset)', () => {
    for (let i = 0; i < 500; i++) {
      const address = bytesToHex(globalThis.crypto.getRandomValues(new Uint8Array(20)));
      expect(toChecksumAddress(address)).toBe(reference(address));
    }
  });

  it('gives the same from 20 raw bytes at any offset (binary pages), alternating with hex input', () => {
    for (let i = 0; i < 300; i++) {
      const buffer = globalThis.crypto.getRandomValues(new Uint8Array(64));
      const offset = i % 45;
      const address = bytesToHex(buffer.subarray(offset, offset + 20));
      expect(checksumAddressOfBytes(buffer, offset)).toBe(reference(address));
      expect(toChecksumAddress(address)).toBe(reference(address));
    }
    for (const offset of [-1, 45, 1.5]) expect(() => checksumAddressOfBytes(new Uint8Array(64), offset)).toThrow(RangeError);
  });

  it('refuses anything that is not 40 hex digits', () => {
    for (const bad of ['', '0x', '0x1234', `0x${'g'.repeat(40)}`, `0x${'a'.repeat(41)}`, ` 0x${'a'.repeat(40)}`, `0x0x${'a'.repeat(38)}`]) {
      expect(() => toChecksumAddress(bad), bad).toThrow(RangeError);
    }
  });
});

describe('checksumProblem (the one EIP-55 rule for typed addresses)', () => {
  const valid = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

  it('passes a right checksum and either single case, which carries none', () => {
    for (const address of [valid, valid.toLowerCase(), `0x${valid.slice(2).toUpperCase()}`, `0X${valid.slice(2)}`]) expect(checksumProblem(address), address).toBeNull();
  });

  it('calls any single letter in the wrong case of a checksummed address a checksum problem, on random addresses', () => {
    for (let i = 0; i < 200; i++) {
      const address = toChecksumAddress(bytesToHex(globalThis.crypto.getRandomValues(new Uint8Array(20))));
      const letters = [...address.slice(2)].flatMap((c, j) => (/[a-fA-F]/.test(c) ? [j + 2] : []));
      const mixed = address.slice(2) !== address.slice(2).toLowerCase() && address.slice(2) !== address.slice(2).toUpperCase();
      for (const j of letters) {
        const c = address[j]!;
        const typo = address.slice(0, j) + (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) + address.slice(j + 1);
        const typoDigits = typo.slice(2);
        // Flipping the only letter of one case may leave a single-case address: no checksum left to check.
        const expected = typoDigits === typoDigits.toLowerCase() || typoDigits === typoDigits.toUpperCase() ? null : 'checksum';
        expect(checksumProblem(typo), `${address} -> ${typo}`).toBe(expected);
      }
      expect(checksumProblem(address), `${address} (mixed ${mixed})`).toBeNull();
    }
  });

  it('calls anything but 0x and 40 hex digits a format problem', () => {
    for (const text of ['', valid.slice(0, 41), `${valid}0`, valid.slice(2), ` ${valid}`, `0x${'g'.repeat(40)}`, 42 as unknown as string]) expect(checksumProblem(text), String(text)).toBe('format');
  });
});
