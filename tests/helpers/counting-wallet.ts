/**
 * A wallet for SDK tests in Node: an EIP-1193 provider in front of anvil that records every
 * request it receives, so a test counts the confirmations a payment asks for (each
 * `eth_sendTransaction` or `wallet_sendCalls` is one prompt a real wallet would show).
 *
 * With `atomicBatches`, it speaks EIP-5792 as MetaMask does with EIP-7702: `wallet_getCapabilities`
 * answers `atomic: ready`, and `wallet_sendCalls` runs the calls atomically for real: the account
 * delegates itself to Simple7702Account (a type-4 transaction carrying its own authorization, the
 * first time) and calls its own `executeBatch`, so either every call succeeds or none does.
 * Without it, EIP-5792 methods are refused (-32601), as a wallet that lacks them answers.
 */
import { concat, createWalletClient, encodeFunctionData, getAddress, http, type Abi, type Address, type EIP1193RequestFn, type Hex, type PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { readFileSync } from 'node:fs';

/** CREATE2 deployer present on anvil (TOOLCHAIN.md). */
const CREATE2_DEPLOYER: Address = '0x4e59b44847b379578588920ca78fbf26c0b4956c';
const simple7702 = JSON.parse(readFileSync(new URL('../../node_modules/@account-abstraction/contracts/artifacts/Simple7702Account.json', import.meta.url), 'utf8')) as { abi: Abi; bytecode: Hex };
/** Where Simple7702Account lands with salt 0 (viem's `toSimple7702SmartAccount` default, TOOLCHAIN.md). */
export const SIMPLE_7702_ACCOUNT: Address = '0xe6Cae83BdE06E4c305530e199D7217f42808555B';

/** Place Simple7702Account at its usual address (once per chain). */
export async function deploySimple7702Account(client: PublicClient, rpcUrl: string, funderKey: Hex): Promise<Address> {
  const code = await client.getCode({ address: SIMPLE_7702_ACCOUNT });
  if (code !== undefined && code !== '0x') return SIMPLE_7702_ACCOUNT;
  const wallet = createWalletClient({ account: privateKeyToAccount(funderKey), chain: { ...foundry, id: await client.getChainId() }, transport: http(rpcUrl) });
  const hash = await wallet.sendTransaction({ to: CREATE2_DEPLOYER, data: concat([`0x${'00'.repeat(32)}`, simple7702.bytecode]) });
  await client.waitForTransactionReceipt({ hash });
  const deployed = await client.getCode({ address: SIMPLE_7702_ACCOUNT });
  if (deployed === undefined || deployed === '0x') throw new Error('Simple7702Account did not land at its usual address');
  return SIMPLE_7702_ACCOUNT;
}

export type CountingWallet = {
  request: EIP1193RequestFn;
  /** Every request, in order. */
  calls: { method: string; params: unknown[] }[];
  /** The requests a user would confirm: `eth_sendTransaction` and `wallet_sendCalls`. */
  confirmations(): string[];
};

export type CountingWalletOptions = {
  rpcUrl: string;
  client: PublicClient;
  /** An anvil dev account's key: anvil signs its plain transactions; the batch's authorization is signed with it. */
  key: Hex;
  atomicBatches?: boolean;
};

const CONFIRMED = new Set(['eth_sendTransaction', 'wallet_sendCalls']);

export function countingWallet({ rpcUrl, client, key, atomicBatches = false }: CountingWalletOptions): CountingWallet {
  const account = privateKeyToAccount(key);
  const calls: CountingWallet['calls'] = [];
  const batches = new Map<string, Hex>();
  let id = 0;
  const forward = async (method: string, params: unknown[]) => {
    const response = await fetch(rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }) });
    const answer = (await response.json()) as { result?: unknown; error?: { code: number; message: string; data?: unknown } };
    if (answer.error) throw Object.assign(new Error(answer.error.message), answer.error);
    return answer.result;
  };
  const refuse = (method: string) => Object.assign(new Error(`The method ${method} does not exist / is not available.`), { code: -32601 });

  const sendBatch = async (batchCalls: { to: Address; data?: Hex; value?: Hex }[]): Promise<Hex> => {
    const chain = { ...foundry, id: await client.getChainId() };
    const signer = createWalletClient({ account, chain, transport: http(rpcUrl) });
    const code = await client.getCode({ address: account.address });
    const delegated = code?.toLowerCase() === concat(['0xef0100', SIMPLE_7702_ACCOUNT]).toLowerCase();
    const data = encodeFunctionData({
      abi: simple7702.abi,
      functionName: 'executeBatch',
      args: [batchCalls.map((c) => ({ target: getAddress(c.to), value: BigInt(c.value ?? '0x0'), data: c.data ?? '0x' }))],
    });
    const authorizationList = delegated ? [] : [await signer.signAuthorization({ contractAddress: SIMPLE_7702_ACCOUNT, executor: 'self' })];
    const value = batchCalls.reduce((sum, c) => sum + BigInt(c.value ?? '0x0'), 0n);
    if (value > 0n) throw new Error('this test wallet batches calls without coin only');
    return signer.sendTransaction({ to: account.address, data, ...(authorizationList.length > 0 ? { authorizationList } : {}) });
  };

  const request = (async ({ method, params = [] }: { method: string; params?: unknown[] }) => {
    calls.push({ method, params: params as unknown[] });
    if (method === 'eth_accounts' || method === 'eth_requestAccounts') return [account.address];
    if (method === 'wallet_getCapabilities') {
      if (!atomicBatches) throw refuse(method);
      return { [`0x${(await client.getChainId()).toString(16)}`]: { atomic: { status: 'ready' } } };
    }
    if (method === 'wallet_sendCalls') {
      if (!atomicBatches) throw refuse(method);
      const [{ calls: batchCalls }] = params as [{ calls: { to: Address; data?: Hex; value?: Hex }[] }];
      const hash = await sendBatch(batchCalls);
      const batchId = `0x${(batches.size + 1).toString(16).padStart(64, '0')}`;
      batches.set(batchId, hash);
      return { id: batchId };
    }
    if (method === 'wallet_getCallsStatus') {
      const hash = batches.get((params as [string])[0]);
      if (hash === undefined) throw Object.assign(new Error('Unknown bundle id'), { code: 5730 });
      const receipt = (await forward('eth_getTransactionReceipt', [hash])) as { status: Hex } | null;
      const chainId = `0x${(await client.getChainId()).toString(16)}`;
      if (receipt === null) return { version: '2.0.0', id: params[0], chainId, status: 100, atomic: true };
      return { version: '2.0.0', id: params[0], chainId, status: receipt.status === '0x1' ? 200 : 500, atomic: true, receipts: [receipt] };
    }
    return forward(method, params as unknown[]);
  }) as EIP1193RequestFn;

  return { request, calls, confirmations: () => calls.filter((c) => CONFIRMED.has(c.method)).map((c) => c.method) };
}
