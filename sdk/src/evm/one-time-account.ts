/**
 * The stealth address's own account, signing with the one-time key `p` (PROTOCOL.md section 5)
 * on the SDK's own secp256k1 (viem's local accounts would bring a second copy of the curve code
 * into a browser bundle): a withdrawal transaction (funds.ts), an EIP-7702 authorization and an
 * ERC-4337 user operation hash (gasless.ts). The key never leaves this object.
 * @module
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, hexToBytes, serializeTransaction, type Address, type Hex, type TransactionSerializable } from 'viem';
import { evmAddressOf } from '../address.ts';
import { InvalidArgumentError } from '../errors.ts';

/** A recoverable signature in the fields transactions and authorizations carry. */
export type RecoveredSignature = { r: Hex; s: Hex; yParity: number };

export type OneTimeAccount = {
  address: Address;
  signTransaction(transaction: TransactionSerializable): Promise<Hex>;
  /** Sign a 32-byte digest as it is (no EIP-191 prefix). */
  signDigest(digest: Uint8Array): RecoveredSignature;
};

/** Parse the discovery's one-time key (32 bytes or `0x` hex) into its account. */
export function oneTimeAccountOf(stealthSecretKey: unknown): OneTimeAccount {
  const hex = stealthSecretKey instanceof Uint8Array ? bytesToHex(stealthSecretKey) : stealthSecretKey;
  if (typeof hex !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(hex)) throw new InvalidArgumentError('stealthSecretKey', 'must be the 32-byte one-time key of a discovery');
  return oneTimeAccount(hexToBytes(hex as Hex));
}

function oneTimeAccount(secret: Uint8Array): OneTimeAccount {
  if (!secp256k1.utils.isValidSecretKey(secret)) throw new InvalidArgumentError('stealthSecretKey', 'is not a valid secp256k1 secret key');
  const address = evmAddressOf(secp256k1.Point.BASE.multiply(secp256k1.Point.Fn.fromBytes(secret))) as Address;
  const signDigest = (digest: Uint8Array): RecoveredSignature => {
    // Recovered form: the recovery bit, then r and s (low s).
    const signature = secp256k1.sign(digest, secret, { prehash: false, format: 'recovered' });
    return { yParity: signature[0]!, r: bytesToHex(signature.subarray(1, 33)), s: bytesToHex(signature.subarray(33, 65)) };
  };
  return {
    address,
    signDigest,
    async signTransaction(transaction) {
      const { r, s, yParity } = signDigest(keccak_256(hexToBytes(serializeTransaction(transaction))));
      return serializeTransaction(transaction, { r, s, yParity, v: 27n + BigInt(yParity) });
    },
  };
}
