/**
 * What a sender typed as the recipient: an ENS name (`alice.eth`), a SuiNS name (`alice.sui`),
 * a plain EVM address (`0x` + 40 hex digits: its meta-address is looked up in the ERC-6538
 * registry, erc6538-lookup.ts), a meta-address (hex, or the ERC-5564 URI `st:eth:0x…`), the CID
 * of a published meta-address (`bafkrei…`, `ipfs://…`: a hash, so a typo finds nothing rather
 * than someone else's key), or a payment link (`https://…/send?to=<any of these>`, share-link.ts).
 * @module
 */
import { checksumProblem, parseCid, type AnyMetaAddress } from '@wraith-pq/sdk';
import { linkTarget } from './share-link';

/** A recipient Send found: whom the page names, their meta-address and its fingerprint, and the CID it came from. */
export type Recipient = { meta: AnyMetaAddress; source: string; fingerprint: string; cid?: string };

export type RecipientInput =
  | { kind: 'ens'; name: string }
  | { kind: 'suins'; name: string }
  | { kind: 'address'; address: string }
  | { kind: 'meta-address'; text: string }
  | { kind: 'cid'; cid: string }
  | { kind: 'invalid'; reason: string };

export function classifyRecipient(input: string): RecipientInput {
  const text = input.trim();
  if (text === '') return { kind: 'invalid', reason: 'Enter a payment link, a name (alice.eth, alice.sui) or an address (0x…).' };
  // A payment link: what it carries, once (a link inside a link is not one).
  const target = linkTarget(text);
  if (target !== null) {
    const inner = target === '' ? null : classifyRecipient(target);
    if (inner === null || inner.kind === 'invalid') return { kind: 'invalid', reason: 'This link does not say whom to pay: ask the recipient for their payment link again.' };
    return inner;
  }
  // 20 bytes cannot be a meta-address (1218 or 1250 bytes): it is an account's address.
  if (/^0x[0-9a-f]{40}$/i.test(text)) {
    // Mixed case is an EIP-55 checksum (the SDK's one rule, as the server and the CLI read it): a wrong one is a typo.
    if (checksumProblem(text) === 'checksum') return { kind: 'invalid', reason: 'This address has a wrong EIP-55 checksum (its mix of capitals): check it for a typo, or paste it in all one case.' };
    return { kind: 'address', address: text };
  }
  if (/^st:|^(0x)?[0-9a-f]+$/i.test(text)) return { kind: 'meta-address', text };
  if (/^ipfs:\/\/|^\/ipfs\/|^(Qm|baf)[A-Za-z0-9]{40,}$|^k[a-z0-9]{40,}$/.test(text)) {
    try {
      return { kind: 'cid', cid: parseCid(text).toString() };
    } catch {
      return { kind: 'invalid', reason: 'This is not a complete payment code: check that nothing was cut off when it was copied.' };
    }
  }
  if (/\.eth$/i.test(text)) return { kind: 'ens', name: text };
  if (/\.sui$/i.test(text)) return { kind: 'suins', name: text };
  return { kind: 'invalid', reason: 'Enter a payment link, a name ending in .eth or .sui, or an address (0x and 40 characters).' };
}
