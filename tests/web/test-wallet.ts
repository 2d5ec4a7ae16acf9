/**
 * A browser wallet for tests: `page.addInitScript` installs an EIP-1193 provider that announces
 * itself by EIP-6963 (as MetaMask, Rabby... do) and forwards every JSON-RPC request to anvil
 * through `page.exposeFunction`, so the requests leave from Node, not from the page: the page's
 * CSP (`connect-src 'self'`) stays as strict as in production, and the harness's record of the
 * page's network requests holds only what the page itself sent. The account is an anvil dev
 * account, which anvil signs for (`eth_sendTransaction` unsigned).
 *
 * Several chains, as a real wallet has them: one anvil per chain id, the wallet on one of them
 * at a time. `eth_chainId` is the wallet's own answer; `wallet_switchEthereumChain` (EIP-3326)
 * moves it to a chain it knows and emits `chainChanged`, or answers 4902 for one it does not;
 * `wallet_addEthereumChain` (EIP-3085) makes a reachable chain known (the parameters the page
 * gave are kept for the test; requests still go to that chain's anvil, not to the URL given).
 * `eth_sendTransaction` naming another chain than the wallet's is refused, as MetaMask does.
 */
import type { Page } from 'playwright-core';

export type WalletCall = { method: string; params: unknown[] };

export type TestWallet = {
  name: string;
  /** Every request the page made through the wallet, in order. */
  calls: WalletCall[];
  /** What `wallet_addEthereumChain` was given, in order. */
  added: unknown[];
  /** The chain the wallet is on. */
  chainId(): number;
  /**
   * Move the wallet to chain `id` as its user would in the wallet's own menu. `announce: false`
   * emits no `chainChanged`, as a wallet that says nothing (the page must notice by itself).
   */
  setChain(id: number, options?: { announce?: boolean }): Promise<void>;
  /** From now on, the user declines (4001) every request to switch or add a chain. */
  declineSwitching(decline: boolean): void;
  /** From now on, the user declines (4001) every request to send a transaction or a batch of calls. */
  declineSending(decline: boolean): void;
};

export type TestWalletOptions = {
  /** The anvils the wallet can reach (the first is where it starts), or `rpcUrl` for one chain. */
  rpcUrls?: readonly string[];
  rpcUrl?: string;
  account: string;
  name?: string;
  /** Chain ids the wallet knows at the start (default: every chain it can reach); others answer 4902 until added. */
  known?: readonly number[];
};

type Answer = { result?: unknown; error?: { code: number; message: string; data?: unknown }; emit?: [string, unknown] };

const hex = (id: number) => `0x${id.toString(16)}`;

async function rpc(url: string, id: number, method: string, params: unknown[]): Promise<Answer> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id, method, params }) });
  return (await response.json()) as Answer;
}

/** Install the wallet in `page` (before its first navigation). */
export async function installTestWallet(page: Page, options: TestWalletOptions): Promise<TestWallet> {
  const { account, name = 'Test Wallet' } = options;
  const urls = options.rpcUrls ?? (options.rpcUrl ? [options.rpcUrl] : []);
  if (urls.length === 0) throw new Error('installTestWallet: give rpcUrl or rpcUrls');
  let id = 0;
  const endpoints = new Map<number, string>();
  for (const url of urls) endpoints.set(Number(BigInt((await rpc(url, ++id, 'eth_chainId', [])).result as string)), url);
  const known = new Set(options.known ?? endpoints.keys());
  let current = [...endpoints.keys()][0]!;
  let declining = false;
  let decliningSends = false;
  const calls: WalletCall[] = [];
  const added: unknown[] = [];
  const declined: Answer = { error: { code: 4001, message: 'User rejected the request.' } };

  await page.exposeFunction('__testWalletRpc', async (body: string): Promise<string> => {
    const { method, params } = JSON.parse(body) as WalletCall;
    calls.push({ method, params });
    const answer = async (): Promise<Answer> => {
      if (method === 'eth_chainId') return { result: hex(current) };
      if (method === 'wallet_switchEthereumChain') {
        const target = Number(BigInt((params[0] as { chainId: string }).chainId));
        if (declining) return declined;
        if (!known.has(target)) return { error: { code: 4902, message: `Unrecognized chain ID "${hex(target)}". Try adding the chain using wallet_addEthereumChain first.` } };
        const moved = target !== current;
        current = target;
        return { result: null, ...(moved ? { emit: ['chainChanged', hex(target)] as [string, unknown] } : {}) };
      }
      if (method === 'wallet_addEthereumChain') {
        const parameter = params[0] as { chainId?: string; chainName?: unknown; nativeCurrency?: { decimals?: unknown }; rpcUrls?: unknown };
        const complete =
          typeof parameter?.chainId === 'string' &&
          typeof parameter.chainName === 'string' &&
          parameter.nativeCurrency?.decimals === 18 &&
          Array.isArray(parameter.rpcUrls) &&
          parameter.rpcUrls.length > 0;
        if (!complete) return { error: { code: -32602, message: 'Invalid AddEthereumChainParameter.' } };
        if (declining) return declined;
        const target = Number(BigInt(parameter.chainId!));
        if (!endpoints.has(target)) return { error: { code: -32603, message: 'The RPC of that chain does not answer.' } };
        added.push(parameter);
        known.add(target);
        return { result: null };
      }
      if ((method === 'eth_sendTransaction' || method === 'wallet_sendCalls') && decliningSends) return declined;
      if (method === 'eth_sendTransaction') {
        const named = (params[0] as { chainId?: string })?.chainId;
        if (named !== undefined && Number(BigInt(named)) !== current) return { error: { code: -32603, message: `The transaction names chain ${Number(BigInt(named))}; the wallet is on ${current}.` } };
      }
      return rpc(endpoints.get(current)!, ++id, method, params);
    };
    return JSON.stringify(await answer());
  });
  await page.addInitScript(
    ({ account, name }) => {
      const rpc = (window as unknown as { __testWalletRpc(body: string): Promise<string> }).__testWalletRpc;
      const listeners = new Map<string, Set<(...args: unknown[]) => void>>();
      const emit = (event: string, data: unknown) => listeners.get(event)?.forEach((listener) => listener(data));
      (window as unknown as { __testWalletEmit: typeof emit }).__testWalletEmit = emit;
      const provider = {
        async request({ method, params }: { method: string; params?: unknown[] }) {
          // The wallet's own methods: one account, shared with every page that asks.
          if (method === 'eth_requestAccounts' || method === 'eth_accounts') return [account];
          const answer = JSON.parse(await rpc(JSON.stringify({ method, params: params ?? [] }))) as Answer;
          if (answer.error) throw Object.assign(new Error(answer.error.message), { code: answer.error.code, data: answer.error.data });
          if (answer.emit) setTimeout(() => emit(answer.emit![0], answer.emit![1]), 0);
          return answer.result;
        },
        on(event: string, listener: (...args: unknown[]) => void) {
          if (!listeners.has(event)) listeners.set(event, new Set());
          listeners.get(event)!.add(listener);
        },
        removeListener(event: string, listener: (...args: unknown[]) => void) {
          listeners.get(event)?.delete(listener);
        },
      };
      const info = Object.freeze({
        uuid: crypto.randomUUID(),
        name,
        icon: 'data:image/svg+xml,%3Csvg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 96 96"%3E%3Crect width="96" height="96" fill="%234b2bd1"/%3E%3C/svg%3E',
        rdns: 'org.wraith.test-wallet',
      });
      const announce = () => window.dispatchEvent(new CustomEvent('eip6963:announceProvider', { detail: Object.freeze({ info, provider }) }));
      window.addEventListener('eip6963:requestProvider', announce);
      announce();
    },
    { account, name },
  );
  return {
    name,
    calls,
    added,
    chainId: () => current,
    async setChain(target, { announce = true } = {}) {
      if (!endpoints.has(target)) throw new Error(`the test wallet cannot reach chain ${target}`);
      current = target;
      known.add(target);
      if (announce) await page.evaluate((data) => (window as unknown as { __testWalletEmit(event: string, data: unknown): void }).__testWalletEmit('chainChanged', data), hex(target));
    },
    declineSwitching(decline) {
      declining = decline;
    },
    declineSending(decline) {
      decliningSends = decline;
    },
  };
}
