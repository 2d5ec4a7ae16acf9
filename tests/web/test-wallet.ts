/**
 * A browser wallet for tests: `page.addInitScript` installs an EIP-1193 provider that announces
 * itself by EIP-6963 (as MetaMask, Rabby... do) and forwards every JSON-RPC request to anvil
 * through `page.exposeFunction`, so the requests leave from Node, not from the page: the page's
 * CSP (`connect-src 'self'`) stays as strict as in production, and the harness's record of the
 * page's network requests holds only what the page itself sent. The account is an anvil dev
 * account, which anvil signs for (`eth_sendTransaction` unsigned).
 */
import type { Page } from 'playwright-core';

export type WalletCall = { method: string; params: unknown[] };

export type TestWallet = {
  name: string;
  /** Every request the page made through the wallet, in order. */
  calls: WalletCall[];
};

/** Install the wallet in `page` (before its first navigation). */
export async function installTestWallet(page: Page, { rpcUrl, account, name = 'Test Wallet' }: { rpcUrl: string; account: string; name?: string }): Promise<TestWallet> {
  const calls: WalletCall[] = [];
  let id = 0;
  await page.exposeFunction('__testWalletRpc', async (body: string): Promise<string> => {
    const { method, params } = JSON.parse(body) as WalletCall;
    calls.push({ method, params });
    const response = await fetch(rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }) });
    return JSON.stringify(await response.json());
  });
  await page.addInitScript(
    ({ account, name }) => {
      type Answer = { result?: unknown; error?: { code: number; message: string; data?: unknown } };
      const rpc = (window as unknown as { __testWalletRpc(body: string): Promise<string> }).__testWalletRpc;
      const provider = {
        async request({ method, params }: { method: string; params?: unknown[] }) {
          // The wallet's own methods: one account, shared with every page that asks.
          if (method === 'eth_requestAccounts' || method === 'eth_accounts') return [account];
          const answer = JSON.parse(await rpc(JSON.stringify({ method, params: params ?? [] }))) as Answer;
          if (answer.error) throw Object.assign(new Error(answer.error.message), { code: answer.error.code, data: answer.error.data });
          return answer.result;
        },
        on() {},
        removeListener() {},
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
  return { name, calls };
}
