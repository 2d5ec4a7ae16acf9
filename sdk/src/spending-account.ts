/**
 * The EVM account of a meta-address's spending key (PROTOCOL.md section 2): who signs for a label
 * registered to it at an ENS gateway (name-registration.ts).
 * @module
 */
import { evmAddressOf } from './address.ts';
import { type BytesInput } from './bytes.ts';
import { decodeAnyMetaAddress } from './erc8441-meta-address.ts';
import { parseSpendingPublicKey } from './spending-key.ts';

/**
 * The EVM account (EIP-55) of a meta-address's spending key, either form.
 * @example
 * spendingAccountOf(metaAddress) // '0x…'
 */
export function spendingAccountOf(metaAddress: BytesInput): string {
  const meta = decodeAnyMetaAddress(metaAddress);
  return evmAddressOf(parseSpendingPublicKey(meta.spendingPublicKey));
}
