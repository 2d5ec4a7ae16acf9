/**
 * Links to a chain's block explorer for a transaction. Only chains whose explorer this page knows
 * (chains.ts, from viem's chain table) get a link: local dev chains (31337, 1337) have none, and
 * a chain the page does not know is never guessed at.
 * @module
 */

/** `https://etherscan.io/tx/0x…` for an explorer base URL, or null without one. */
export function explorerTxUrl(explorerUrl: string | null | undefined, hash: string): string | null {
  if (!explorerUrl || !/^0x[0-9a-fA-F]{64}$/.test(hash)) return null;
  return `${explorerUrl.replace(/\/+$/, '')}/tx/${hash}`;
}
