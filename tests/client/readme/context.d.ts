/**
 * What the SDK README's snippets take as given: the values an app has by then (a password, keys,
 * a discovery, a wallet, ...), declared with the types the SDK gives them. Each snippet is
 * type-checked as its own module against these (tests/client/readme-snippets.test.ts); a snippet
 * that declares one of them itself shadows it.
 */
import type { ChainCursors, Discovery, RecipientKeys, StealthPayment } from '@wraith-pq/sdk';
import type { WraithClient } from '@wraith-pq/sdk/client';
import type { Address, EIP1193Provider, PublicClient } from 'viem';

declare global {
  interface Window {
    /** An injected wallet (EIP-1193). */
    ethereum: EIP1193Provider;
  }
  const password: string;
  const apiKey: string;
  const keys: RecipientKeys;
  const stored: RecipientKeys;
  const client: WraithClient;
  /** Any wallet that sends a transaction and answers its hash. */
  const wallet: { sendTransaction(transaction: { to: string; value: bigint }): Promise<string> };
  const value: bigint;
  const txHash: string;
  const payment: StealthPayment;
  const recipientMetaAddress: string;
  const batch: { discoveries: Discovery[] };
  const discovery: Discovery;
  const USDC: Address;
  const myFreshAddress: Address;
  const myFreshSuiAddress: string;
  const baseClient: PublicClient;
  const opClient: PublicClient;
  /** The scan cursor saved by the last run (one registry, or one chain). */
  var savedCursor: number;
  /** Every chain's cursor, saved by the last run of a multi-chain scan. */
  var savedCursors: ChainCursors;
}
