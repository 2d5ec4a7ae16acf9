/**
 * The web app's chain binding (app/(web)/_lib/wallet-chain.ts) against two real anvils with
 * different chain ids: a connection made for one chain signs and sends there or nowhere. The
 * "wallet" here is an EIP-1193 provider that forwards to the anvil of the chain it is on, as an
 * injected wallet forwards to its node; the test moves it between chains behind the page's back.
 * The withdrawal is the SDK's own (`withdrawNative`), as the Scan page runs it.
 */
import { withdrawNative } from '@wraith-pq/sdk/evm';
import { createPublicClient, custom, parseEther, type Address, type PublicClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Eip1193Provider } from '../../app/(web)/_lib/eip6963.ts';
import { chainBoundProvider, WrongChainError } from '../../app/(web)/_lib/wallet-chain.ts';
import { startAnvil, type Anvil } from '../helpers/anvil.ts';

const CHAIN_A = 31_337;
const CHAIN_B = 1_337;

let anvils: Record<number, Anvil>;
/** The chain the wallet is on. */
let walletOn = CHAIN_A;
let id = 0;

/** The wallet: every request goes to the anvil of the chain it is on now. */
const wallet: Eip1193Provider = {
  async request({ method, params }) {
    const response = await fetch(anvils[walletOn]!.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params: params ?? [] }),
    });
    const answer = (await response.json()) as { result?: unknown; error?: { message: string } };
    if (answer.error) throw new Error(answer.error.message);
    return answer.result;
  },
};

async function rpc(chain: number, method: string, params: unknown[]): Promise<unknown> {
  const previous = walletOn;
  walletOn = chain;
  try {
    return await wallet.request({ method, params });
  } finally {
    walletOn = previous;
  }
}

const nonceOf = async (chain: number, address: Address) => Number(BigInt((await rpc(chain, 'eth_getTransactionCount', [address, 'latest'])) as string));
const balanceOf = async (chain: number, address: Address) => BigInt((await rpc(chain, 'eth_getBalance', [address, 'latest'])) as string);

/** A client of the page's kind: bound to `chain` when it was made. */
function boundClient(chain: number): PublicClient {
  return createPublicClient({ transport: custom(chainBoundProvider(wallet, 'Node Wallet', chain) as Parameters<typeof custom>[0]), pollingInterval: 50 }) as PublicClient;
}

/** A stealth address's one-time key, funded with 1 ETH on both chains. */
async function fundedKey() {
  const key = generatePrivateKey();
  const address = privateKeyToAccount(key).address;
  for (const chain of [CHAIN_A, CHAIN_B]) await rpc(chain, 'anvil_setBalance', [address, `0x${parseEther('1').toString(16)}`]);
  return { key, address };
}

beforeAll(async () => {
  const [a, b] = await Promise.all([startAnvil(), startAnvil(['--chain-id', String(CHAIN_B)])]);
  anvils = { [CHAIN_A]: a, [CHAIN_B]: b };
}, 60_000);
afterAll(async () => {
  await Promise.all(Object.values(anvils ?? {}).map((a) => a.stop()));
});

describe('a wallet connection bound to its chain', () => {
  it('withdraws on the chain it was made for, leaving the same key untouched on the other chain', { timeout: 30_000 }, async () => {
    const { key, address } = await fundedKey();
    walletOn = CHAIN_B;
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const client = boundClient(CHAIN_B);
    const { hash, amount } = await withdrawNative({ client, stealthSecretKey: key, to });
    // withdrawNative returns once the node took the transaction; anvil may mine it a moment later.
    expect((await client.waitForTransactionReceipt({ hash })).status).toBe('success');
    expect(await balanceOf(CHAIN_B, to)).toBe(amount);
    expect(await balanceOf(CHAIN_B, address)).toBe(0n);
    expect(await nonceOf(CHAIN_A, address)).toBe(0);
    expect(await balanceOf(CHAIN_A, address)).toBe(parseEther('1'));
  });

  it('refuses to sign a withdrawal once the wallet has moved to another chain without saying so: nothing is broadcast, no nonce moves', { timeout: 30_000 }, async () => {
    const { key, address } = await fundedKey();
    const client = boundClient(CHAIN_B);
    walletOn = CHAIN_A;
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const refused = await withdrawNative({ client, stealthSecretKey: key, to }).catch((error: unknown) => error);
    // viem wraps transport errors; the page shows the WrongChainError's sentence.
    const cause = (refused as { walk?: (fn: (e: unknown) => boolean) => unknown }).walk?.((e) => e instanceof WrongChainError) ?? refused;
    expect(cause).toBeInstanceOf(WrongChainError);
    expect((cause as Error).message).toBe(
      'Node Wallet is on Foundry (chain id 31337) now, not on Localhost (chain id 1337): nothing was signed or sent. Switch it to Localhost (chain id 1337) and try again.',
    );
    for (const chain of [CHAIN_A, CHAIN_B]) {
      expect(await nonceOf(chain, address)).toBe(0);
      expect(await balanceOf(chain, address)).toBe(parseEther('1'));
      expect(await balanceOf(chain, to)).toBe(0n);
    }
  });

  it('refuses a raw transaction signed for another chain than its own, even with the wallet on its chain', { timeout: 30_000 }, async () => {
    const { key, address } = await fundedKey();
    walletOn = CHAIN_B;
    const account = privateKeyToAccount(key);
    const signedForA = await account.signTransaction({ chainId: CHAIN_A, nonce: 0, to: address, value: 1n, gas: 21_000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n });
    const bound = chainBoundProvider(wallet, 'Node Wallet', CHAIN_B);
    await expect(bound.request({ method: 'eth_sendRawTransaction', params: [signedForA] })).rejects.toBeInstanceOf(WrongChainError);
    expect(await nonceOf(CHAIN_A, address)).toBe(0);
    expect(await nonceOf(CHAIN_B, address)).toBe(0);
    // Reads are not in the way: the page checks the chain once before each read of balances.
    expect(await bound.request({ method: 'eth_getBalance', params: [address, 'latest'] })).toBe(`0x${parseEther('1').toString(16)}`);
  });
});
