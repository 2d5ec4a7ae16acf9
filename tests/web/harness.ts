/**
 * The web app in a real browser against the real server: `node server.mjs` (tests/helpers/server.ts)
 * with an in-memory registry, the embedded IPFS store, ENS on anvil (tests/helpers/ens-anvil.ts)
 * and SuiNS on the mock Sui full node of tests/helpers/msw-sui.ts served on a loopback port,
 * driven through Debian's Chromium (tests/helpers/chromium.ts).
 *
 * Every request any page makes is recorded, so tests can assert that no secret ever leaves
 * the browser and that nothing is fetched from another origin.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { serveHandlers, type LoopbackHandlers } from '../client/loopback-handlers.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { startEnsChain, type EnsChain } from '../helpers/ens-anvil.ts';
import { createSuiRpcMock, type SuiRpcMock } from '../helpers/msw-sui.ts';
import { PROJECT_DIR, startServer, temporaryDirectory, type RunningServer } from '../helpers/server.ts';

export const SCREENSHOT_DIR = join(PROJECT_DIR, 'test-results', 'screenshots');
export const DESKTOP = { width: 1280, height: 800 };
export const MOBILE = { width: 390, height: 844 };

export type RecordedRequest = { url: string; method: string; headers: Record<string, string>; body: string };

export type WebHarness = {
  server: RunningServer;
  chain: EnsChain;
  /** SuiNS names: `sui.names.set('bob.sui', { contentHash: 'ipfs://…' })`. */
  sui: SuiRpcMock;
  browser: Browser;
  /** Every request made by every page of every context so far. */
  requests: RecordedRequest[];
  /** Console messages that report a Content-Security-Policy violation, a failed load (404...) or a page error. */
  pageErrors: string[];
  /** A fresh browser profile (its own localStorage) with one page. */
  newPage(): Promise<{ context: BrowserContext; page: Page }>;
  stop(): Promise<void>;
};

export type WebHarnessOptions = {
  /** Prepare the chain before the server starts (deploy contracts...); returns extra server environment (CHAIN_RPC_URL...). */
  setupChain?: (chain: EnsChain) => Promise<Record<string, string>>;
};

export async function startWebHarness(options: WebHarnessOptions = {}): Promise<WebHarness> {
  const store = temporaryDirectory('wraith-web-ipfs-');
  const chain = await startEnsChain();
  let sui!: SuiRpcMock;
  let suiNode: LoopbackHandlers | undefined;
  let server: RunningServer | undefined;
  let browser: Browser | undefined;
  try {
    const chainEnv = (await options.setupChain?.(chain)) ?? {};
    suiNode = await serveHandlers((url) => {
      sui = createSuiRpcMock(url);
      return sui.handlers;
    });
    server = await startServer({
      env: {
        REGISTRY_URL: 'memory:',
        RATE_LIMIT_RPS: '0',
        IPFS_STORE_DIR: store.path,
        ETH_RPC_URL: chain.rpcUrl,
        ENS_UNIVERSAL_RESOLVER: chain.universalResolver,
        SUI_RPC_URL: suiNode.url,
        SUI_NETWORK: 'mainnet',
        LOG_LEVEL: 'warn',
        ...chainEnv,
      },
    });
    browser = await launchChromium();
  } catch (error) {
    await server?.stop('SIGKILL');
    await suiNode?.close();
    await chain.stop();
    store.remove();
    throw error;
  }
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const requests: RecordedRequest[] = [];
  const pageErrors: string[] = [];
  const contexts: BrowserContext[] = [];
  const origin = server.url;
  return {
    server,
    chain,
    sui,
    browser,
    requests,
    pageErrors,
    async newPage() {
      // Downloads on, so the backup file can be read; baseURL so tests write paths.
      const context = await browser!.newContext({ baseURL: origin, viewport: DESKTOP, acceptDownloads: true });
      contexts.push(context);
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
      context.on('request', async (request) => {
        const entry: RecordedRequest = { url: request.url(), method: request.method(), headers: {}, body: request.postData() ?? '' };
        requests.push(entry);
        try {
          entry.headers = await request.allHeaders();
        } catch {
          entry.headers = request.headers();
        }
      });
      context.on('weberror', (error) => pageErrors.push(`page error: ${error.error().message}`));
      const page = await context.newPage();
      page.on('console', (message) => {
        const text = message.text();
        if (/Content Security Policy|Refused to|Failed to load resource/i.test(text)) pageErrors.push(`console: ${text} (${message.location().url})`);
      });
      page.on('worker', (worker) =>
        worker.on('console', (message) => {
          const text = message.text();
          if (/Content Security Policy|Refused to/i.test(text)) pageErrors.push(`worker console: ${text}`);
        }),
      );
      return { context, page };
    },
    async stop() {
      await Promise.allSettled(contexts.map((c) => c.close()));
      await browser?.close();
      await server?.stop('SIGTERM');
      await suiNode?.close();
      await chain.stop();
      store.remove();
    },
  };
}

/** A full-page screenshot at desktop and at mobile width: test-results/screenshots/<name>-desktop.png, -mobile.png. */
export async function screenshots(page: Page, name: string): Promise<void> {
  await page.setViewportSize(DESKTOP);
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}-desktop.png`), fullPage: true });
  await page.setViewportSize(MOBILE);
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}-mobile.png`), fullPage: true });
  // Responsive: nothing may stick out sideways on a phone.
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  if (overflow > 0) throw new Error(`${name}: the page is ${overflow}px wider than a ${MOBILE.width}px screen`);
  await page.setViewportSize(DESKTOP);
}
