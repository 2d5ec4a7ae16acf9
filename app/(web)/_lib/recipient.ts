/**
 * What a sender typed as the recipient: an ENS name (`alice.eth`), a SuiNS name (`alice.sui`),
 * a plain EVM address (`0x` + 40 hex digits: its meta-address is looked up in the ERC-6538
 * registry, erc6538-lookup.ts) or a meta-address (hex, or the ERC-5564 URI `st:eth:0x…`).
 * @module
 */
import { checksumProblem } from '@wraith-pq/sdk';

export type RecipientInput =
  | { kind: 'ens'; name: string }
  | { kind: 'suins'; name: string }
  | { kind: 'address'; address: string }
  | { kind: 'meta-address'; text: string }
  | { kind: 'invalid'; reason: string };

export function classifyRecipient(input: string): RecipientInput {
  const text = input.trim();
  if (text === '') return { kind: 'invalid', reason: 'Enter a name (alice.eth, alice.sui), an address (0x…) or a meta-address.' };
  // 20 bytes cannot be a meta-address (1218 or 1250 bytes): it is an account's address.
  if (/^0x[0-9a-f]{40}$/i.test(text)) {
    // Mixed case is an EIP-55 checksum (the SDK's one rule, as the server and the CLI read it): a wrong one is a typo.
    if (checksumProblem(text) === 'checksum') return { kind: 'invalid', reason: 'This address has a wrong EIP-55 checksum (its mix of capitals): check it for a typo, or paste it in all one case.' };
    return { kind: 'address', address: text };
  }
  if (/^st:|^(0x)?[0-9a-f]+$/i.test(text)) return { kind: 'meta-address', text };
  if (/\.eth$/i.test(text)) return { kind: 'ens', name: text };
  if (/\.sui$/i.test(text)) return { kind: 'suins', name: text };
  return { kind: 'invalid', reason: 'Names end in .eth or .sui; an address is 0x and 40 hex digits; a meta-address is hex (0x02…) or st:eth:0x….' };
}
