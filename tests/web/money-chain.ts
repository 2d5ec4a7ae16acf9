/**
 * The chain the money tests of the web app run on: anvil (with ENS, tests/helpers/ens-anvil.ts)
 * carrying the ERC-5564 Announcer at its canonical address, WraithPay (a payment and its
 * announcement in one transaction) and a solc-compiled ERC-20 ("Test
 * Token", TST, 18 decimals) whose whole supply the sender holds; the real server indexes it.
 */
import { ANNOUNCER_ADDRESS, deployWraithPay } from '@wraith-pq/sdk/evm';
import { createPublicClient, createWalletClient, getAddress, http as viemHttp, type Address, type PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { expect } from 'vitest';
import { compileAnnouncerContracts, DEV_KEYS } from '../helpers/announcer-chain.ts';
import { compileContracts } from '../helpers/anvil.ts';
import type { EnsChain } from '../helpers/ens-anvil.ts';
import type { Page } from 'playwright-core';
import { http, type RunningServer } from '../helpers/server.ts';
import { startWebHarness, type WebHarness } from './harness.ts';
import { installTestWallet, type TestWallet } from './test-wallet.ts';

/** The sender's wallet account: anvil's second dev account (the first deploys ENS and writes names). */
export const sender = privateKeyToAccount(DEV_KEYS[1]!);
export const TOKENS = 10n ** 18n; // the test token has 18 decimals

export type MoneyChain = { client: PublicClient; token: Address; env: Record<string, string> };

/** Deploy the Announcer's code and the token on `chain`; the server environment that indexes it. */
export async function setupMoneyChain(chain: EnsChain): Promise<MoneyChain> {
  const client = createPublicClient({ chain: foundry, transport: viemHttp(chain.rpcUrl, { retryCount: 0 }), pollingInterval: 50 }) as PublicClient;
  // The Announcer's runtime code at its canonical address, as on every real chain.
  await client.request({ method: 'anvil_setCode', params: [ANNOUNCER_ADDRESS, compileAnnouncerContracts().ERC5564Announcer!.deployedBytecode] } as never);
  // The sender holds the whole supply of a plain ERC-20.
  const { abi, bytecode } = compileContracts(new URL('../fixtures/erc20/', import.meta.url))['TestToken']!;
  const wallet = createWalletClient({ account: sender, chain: foundry, transport: viemHttp(chain.rpcUrl, { retryCount: 0 }) });
  const hash = await wallet.deployContract({ abi, bytecode, args: ['Test Token', 'TST', 18, 10n ** 6n * TOKENS] } as never);
  const token = getAddress((await client.waitForTransactionReceipt({ hash })).contractAddress!);
  // WraithPay at its CREATE2 address (anvil carries the deployer), as on a chain where it is deployed: a payment is one transaction.
  await deployWraithPay({ client, wallet });
  return { client, token, env: { CHAIN_RPC_URL: chain.rpcUrl, CHAIN_NAME: 'ethereum', INDEXER_CONFIRMATIONS: '0', INDEXER_POLL_MS: '100' } };
}

/** Wait until the server's indexer has read the chain up to its head (/health). */
export async function waitIndexed(server: RunningServer, client: PublicClient): Promise<void> {
  const head = Number(await client.getBlockNumber({ cacheTime: 0 }));
  await expect.poll(async () => (await http(server, '/health')).json.chain?.indexed_block ?? -1, { timeout: 30_000, interval: 100 }).toBeGreaterThanOrEqual(head);
}

/** A fresh browser profile with the test wallet installed (its account: the sender's). */
export async function pageWithWallet(h: WebHarness): Promise<{ page: Page; wallet: TestWallet }> {
  const { page } = await h.newPage();
  const wallet = await installTestWallet(page, { rpcUrl: h.chain.rpcUrl, account: sender.address });
  return { page, wallet };
}

/**
 * The web harness on a money chain (the Announcer and the test token deployed, the server indexing
 * it). `nameToken`: the chain is configured through `CHAINS` with the test token named "TST"
 * (GET /api/v1/chains lists it, so Send offers it by symbol).
 */
export async function startMoneyHarness({ nameToken = false } = {}): Promise<{ h: WebHarness; money: MoneyChain }> {
  let money!: MoneyChain;
  const h = await startWebHarness({
    async setupChain(chain) {
      money = await setupMoneyChain(chain);
      if (!nameToken) return money.env;
      const entry = { name: 'ethereum', rpc_url: chain.rpcUrl, confirmations: 0, tokens: [{ address: money.token, symbol: 'TST', decimals: 18 }] };
      return { CHAINS: JSON.stringify([entry]), INDEXER_POLL_MS: '100' };
    },
  });
  return { h, money };
}
