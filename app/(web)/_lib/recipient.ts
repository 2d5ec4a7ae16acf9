/**
 * What a sender typed as the recipient: an ENS name (`alice.eth`), a SuiNS name (`alice.sui`)
 * or a meta-address (hex, or the ERC-5564 URI `st:eth:0x…`).
 * @module
 */
export type RecipientInput =
  | { kind: 'ens'; name: string }
  | { kind: 'suins'; name: string }
  | { kind: 'meta-address'; text: string }
  | { kind: 'invalid'; reason: string };

export function classifyRecipient(input: string): RecipientInput {
  const text = input.trim();
  if (text === '') return { kind: 'invalid', reason: 'Enter a name (alice.eth, alice.sui) or a meta-address.' };
  if (/^st:|^(0x)?[0-9a-f]+$/i.test(text)) return { kind: 'meta-address', text };
  if (/\.eth$/i.test(text)) return { kind: 'ens', name: text };
  if (/\.sui$/i.test(text)) return { kind: 'suins', name: text };
  return { kind: 'invalid', reason: 'Names end in .eth or .sui; a meta-address is hex (0x02…) or st:eth:0x….' };
}
