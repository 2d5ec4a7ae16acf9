/**
 * Keys derived from a wallet signature, for wallets that want "sign this message to unlock
 * your stealth keys" instead of storing a keystore.
 *
 *     (spendingSecret, viewingSeed) from H("WRAITH_KEYS_FROM_SIGNATURE_V1", r || s_low || ctr, 96)
 *
 * `s` is normalised to the low half of the group order first: a valid ECDSA signature `(r, s)`
 * has a twin `(r, n - s)`, and both must give the same keys. The recovery byte `v` is ignored
 * for the same reason (it only selects between the twins' public keys).
 *
 * Caveat: this is only as stable as the wallet's signatures. RFC 6979 EOA wallets sign
 * deterministically, so the same message gives the same keys on every device. Contract wallets
 * (ERC-1271, e.g. multisigs and smart accounts), MPC wallets and some hardware wallets may
 * produce a different valid signature each time: with them the derived keys change and
 * earlier payments become unfindable. Use the encrypted keystore for those.
 * @module
 */
import { bytesToBigInt, bigIntToBytes, concatBytes, toBytes, type BytesInput } from './bytes.ts';
import { InvalidArgumentError } from './errors.ts';
import { domainHash } from './hash.ts';
import { generateKeys, type RecipientKeys } from './keys.ts';
import { CURVE_ORDER } from './spending-key.ts';

const DOMAIN = 'WRAITH_KEYS_FROM_SIGNATURE_V1';

/**
 * Derive a recipient's keys from a 65-byte (`r || s || v`) or 64-byte EIP-2098 compact
 * (`r || yParityAndS`) secp256k1 signature. A 64-byte input is always read as EIP-2098: its top
 * bit is yParity, so `s` must be low (EIP-2), as Ethereum wallets produce it.
 *
 * Caveat: the keys are only as stable as the wallet's signatures. Externally owned accounts
 * sign deterministically (RFC 6979), so the same message gives the same keys on every device;
 * contract wallets (ERC-1271 multisigs, smart accounts), MPC wallets and some hardware wallets
 * may return a different valid signature each time, which gives different keys and makes
 * earlier payments unfindable. For those, generate keys and keep them with `sealKeys`.
 *
 * @example
 * const signature = await wallet.signMessage('Wraith stealth keys v1 for 0xabc…');
 * const keys = deriveKeysFromSignature(signature);
 */
export function deriveKeysFromSignature(signature: BytesInput): RecipientKeys {
  const bytes = toBytes(signature, 'signature');
  if (bytes.length !== 64 && bytes.length !== 65) throw new InvalidArgumentError('signature', 'must be 64 or 65 bytes');
  const r = bytesToBigInt(bytes.subarray(0, 32));
  let s = bytesToBigInt(bytes.subarray(32, 64));
  // The 64-byte EIP-2098 compact form keeps yParity in the top bit of (low) s; it is not part of s.
  if (bytes.length === 64) s &= (1n << 255n) - 1n;
  if (r === 0n || r >= CURVE_ORDER || s === 0n || s >= CURVE_ORDER) {
    throw new InvalidArgumentError('signature', 'is not a valid secp256k1 signature (r or s out of range)');
  }
  if (s > CURVE_ORDER >> 1n) s = CURVE_ORDER - s;
  const input = concatBytes(bigIntToBytes(r, 32), bigIntToBytes(s, 32));
  for (let ctr = 0; ctr < 256; ctr++) {
    const out = domainHash(DOMAIN, 96, input, Uint8Array.of(ctr));
    const spendingSecret = out.subarray(0, 32);
    const b = bytesToBigInt(spendingSecret);
    if (b >= 1n && b < CURVE_ORDER) return generateKeys({ spendingSecret, viewingSeed: out.subarray(32) });
  }
  throw new InvalidArgumentError('signature', 'yields no valid spending key'); // probability ~2^-32000
}
