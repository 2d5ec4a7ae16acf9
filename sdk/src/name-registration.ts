/**
 * What a recipient signs to register, change or release a name at a Wraith ENS gateway
 * (issue 33): an EIP-191 `personal_sign` text that names the action, the name, the meta-address
 * (by its keccak-256), the name's current nonce (each accepted change advances it, so a signature
 * is good once: replay protection) and the deployment's resolver (a signature for one deployment
 * is worthless at another).
 *
 * Who signs: for a label under the deployment's parent name, the meta-address's spending key
 * (the EVM account of `B`, PROTOCOL.md section 2) of the meta-address being registered, and for a
 * change or release the one registered now; for an own ENS name, the name's owner in the ENS
 * registry.
 * @module
 */
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, toBytes, type BytesInput } from './bytes.ts';

export type NameAction = 'register' | 'change' | 'release';

export type NameRegistrationMessageParameters = {
  action: NameAction;
  /** ENSIP-15 normalised name, e.g. `alice.wraith.eth`. */
  name: string;
  /** The meta-address the name will point at (register, change), its bytes (hex or `Uint8Array`, either form); absent for release. */
  metaAddress?: BytesInput;
  /** The name's nonce now (0 for a name never registered here): GET /api/v1/names/:name. */
  nonce: number;
  /** The deployment's resolver (GET /api/v1/names/:name answers it), any case. */
  resolver: string;
};

/**
 * The text to sign with `personal_sign` (EIP-191).
 * @example
 * const message = nameRegistrationMessage({ action: 'register', name: 'alice.wraith.eth', metaAddress, nonce: 0, resolver });
 * const signature = await privateKeyToAccount(spendingKeyHex).signMessage({ message });
 */
export function nameRegistrationMessage(parameters: NameRegistrationMessageParameters): string {
  const lines = ['Wraith ENS gateway', `action: ${parameters.action}`, `name: ${parameters.name}`];
  if (parameters.metaAddress !== undefined) lines.push(`meta-address keccak256: 0x${bytesToHex(keccak_256(toBytes(parameters.metaAddress, 'metaAddress')))}`);
  lines.push(`nonce: ${parameters.nonce}`, `resolver: ${parameters.resolver.toLowerCase()}`);
  return lines.join('\n');
}
