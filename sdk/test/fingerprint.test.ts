import { describe, expect, it } from 'vitest';
import { bytesToHex, fingerprintMatches, formatMetaAddressUri, generateKeys, metaAddressFingerprint } from '../src/index.ts';
import { erc8441KeysOf } from '../src/erc8441-keys.ts';

describe('metaAddressFingerprint', () => {
  const keys = generateKeys({ spendingSecret: new Uint8Array(32).fill(7), viewingSeed: new Uint8Array(64).fill(8) });

  it('is the same for the bytes, the hex and the URI of one meta-address, and four groups of four', () => {
    const fp = metaAddressFingerprint(keys.metaAddress);
    expect(fp).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){3}$/);
    expect(metaAddressFingerprint(bytesToHex(keys.metaAddress))).toBe(fp);
    expect(metaAddressFingerprint(formatMetaAddressUri(keys.metaAddress))).toBe(fp);
  });

  it('changes when one hex digit of the meta-address is mistyped (the typo still decodes)', () => {
    const hex = bytesToHex(keys.metaAddress);
    const last = hex.at(-1)!;
    const typo = hex.slice(0, -1) + (last === '0' ? '1' : '0');
    expect(metaAddressFingerprint(typo)).not.toBe(metaAddressFingerprint(hex));
  });

  it('fingerprints the ERC-8441 form too, and refuses something that is not a meta-address', () => {
    const erc = erc8441KeysOf(keys);
    expect(metaAddressFingerprint(erc.metaAddress)).toMatch(/^\w{4}-\w{4}-\w{4}-\w{4}$/);
    expect(metaAddressFingerprint(erc.metaAddress)).not.toBe(metaAddressFingerprint(keys.metaAddress));
    expect(() => metaAddressFingerprint('0x1234')).toThrow(/meta-address/i);
  });

  it('matches a typed fingerprint regardless of case, dashes and look-alike letters', () => {
    const fp = metaAddressFingerprint(keys.metaAddress);
    expect(fingerprintMatches(keys.metaAddress, fp.toLowerCase().replace(/-/g, ' '))).toBe(true);
    expect(fingerprintMatches(keys.metaAddress, fp.replace(/0/g, 'O').replace(/1/g, 'l'))).toBe(true);
    const wrong = (fp[0] === 'A' ? 'B' : 'A') + fp.slice(1);
    expect(fingerprintMatches(keys.metaAddress, wrong)).toBe(false);
  });
});
