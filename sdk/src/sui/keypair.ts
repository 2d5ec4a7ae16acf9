/**
 * The signer of a discovered Sui stealth address: the one-time key `p` (PROTOCOL.md section 5)
 * as a `Secp256k1Keypair` of @mysten/sui. Its Sui address is `BLAKE2b-256(0x01 || P_compressed)`,
 * the `stealthSuiAddress` of the discovery (PROTOCOL.md section 4 step 6).
 * @module
 */
import { Secp256k1Keypair } from '@mysten/sui/keypairs/secp256k1';
import { bytesToBigInt, hexToBytes } from '../bytes.ts';
import { InvalidArgumentError } from '../errors.ts';

const SECRET_KEY_HEX = /^0[xX][0-9a-fA-F]{64}$/;
/** secp256k1's group order n (SEC 2 section 2.4.1); written out so this entry needs no curve code of its own. */
const CURVE_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/**
 * The Sui signer of a discovery: a `Secp256k1Keypair` holding the one-time key `p`
 * (`discovery.stealthSecretKey`, 32 bytes or `0x` hex). `keypair.toSuiAddress()` is the
 * discovery's `stealthSuiAddress`. The key stays in memory here; nothing is sent.
 * @throws {InvalidArgumentError} when the key is not 32 bytes or not a valid secp256k1 secret key
 * (the message never contains the key).
 *
 * @example
 * import { suiStealthKeypair } from '@wraith-pq/sdk/sui';
 * const keypair = suiStealthKeypair(discovery.stealthSecretKey);
 * keypair.toSuiAddress() === discovery.stealthSuiAddress; // true
 */
export function suiStealthKeypair(stealthSecretKey: Uint8Array | string): Secp256k1Keypair {
  let secret: Uint8Array;
  if (stealthSecretKey instanceof Uint8Array && stealthSecretKey.length === 32) secret = stealthSecretKey.slice();
  else if (typeof stealthSecretKey === 'string' && SECRET_KEY_HEX.test(stealthSecretKey)) secret = hexToBytes(stealthSecretKey, 'stealthSecretKey', 32);
  else throw new InvalidArgumentError('stealthSecretKey', 'must be the 32-byte one-time key of a discovery (bytes or 0x-prefixed hex)');
  // 1 <= p < n; checked here so a bad key is a typed error, not the keypair's plain Error.
  const scalar = bytesToBigInt(secret);
  if (scalar === 0n || scalar >= CURVE_ORDER) throw new InvalidArgumentError('stealthSecretKey', 'is not a valid secp256k1 secret key');
  return Secp256k1Keypair.fromSecretKey(secret);
}
