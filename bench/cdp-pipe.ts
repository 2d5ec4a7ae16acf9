/**
 * Chromium driven over its DevTools pipe with nothing but `Runtime`: a browser as its user has
 * it, for timing the Scan page (issue 17).
 *
 * Why not Playwright for the timed part: Playwright enables the DevTools `Network` domain on
 * every page and worker it attaches to, and then Chromium's inspector copies every response body
 * it receives (so that `Network.getResponseBody` could return it). For a scan that reads 1.1 kB
 * of ciphertext per announcement, that copy is a cost no user pays. Here only `Target`, `Page`
 * (navigation, an init script) and `Runtime` commands are sent, over `--remote-debugging-pipe`
 * (file descriptors 3 and 4, messages separated by NUL), so the inspector records no traffic.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { CHROMIUM_PATH } from '../tests/helpers/chromium.ts';

type Pending = { resolve(value: unknown): void; reject(error: Error): void };

export type PipePage = {
  /** Evaluates `expression` (awaiting a promise it returns) in the page and returns its JSON value. */
  evaluate<T>(expression: string): Promise<T>;
  /** Navigates and resolves once the document's `load` fired. */
  goto(url: string): Promise<void>;
  /** Empties the browser's HTTP cache (a user's first scan finds none of the registry there). */
  clearHttpCache(): Promise<void>;
  /** Runs `source` in every new document before its own scripts. */
  addInitScript(source: string): Promise<void>;
  version: string;
  close(): Promise<void>;
};

export async function launchPipeChromium(): Promise<PipePage> {
  const profile = mkdtempSync(join(tmpdir(), 'wraith-chromium-'));
  const child: ChildProcess = spawn(
    CHROMIUM_PATH,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
      '--no-first-run',
      '--remote-debugging-pipe',
      `--user-data-dir=${profile}`,
      'about:blank',
    ],
    { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] },
  );
  const toBrowser = child.stdio[3] as Writable;
  const fromBrowser = child.stdio[4] as Readable;
  const pending = new Map<number, Pending>();
  const listeners: ((method: string, params: Record<string, unknown>, sessionId?: string) => void)[] = [];
  let nextId = 1;
  let buffered = '';
  fromBrowser.setEncoding('utf8');
  fromBrowser.on('data', (chunk: string) => {
    buffered += chunk;
    for (let end = buffered.indexOf('\0'); end >= 0; end = buffered.indexOf('\0')) {
      const message = JSON.parse(buffered.slice(0, end)) as { id?: number; result?: unknown; error?: { message: string }; method?: string; params?: Record<string, unknown>; sessionId?: string };
      buffered = buffered.slice(end + 1);
      if (message.id !== undefined) {
        const waiting = pending.get(message.id);
        pending.delete(message.id);
        if (message.error) waiting?.reject(new Error(message.error.message));
        else waiting?.resolve(message.result);
      } else if (message.method) {
        for (const listener of listeners) listener(message.method, message.params ?? {}, message.sessionId);
      }
    }
  });
  child.on('exit', () => {
    for (const waiting of pending.values()) waiting.reject(new Error('Chromium exited'));
    pending.clear();
  });
  const send = <T>(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<T> =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      toBrowser.write(`${JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) })}\0`);
    });

  const { product } = await send<{ product: string }>('Browser.getVersion');
  const { targetId } = await send<{ targetId: string }>('Target.createTarget', { url: 'about:blank' });
  const { sessionId } = await send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true });
  await send('Page.enable', {}, sessionId);

  return {
    version: product,
    async evaluate<T>(expression: string): Promise<T> {
      const reply = await send<{ result: { value?: T }; exceptionDetails?: { text: string; exception?: { description?: string } } }>(
        'Runtime.evaluate',
        { expression, awaitPromise: true, returnByValue: true },
        sessionId,
      );
      if (reply.exceptionDetails) throw new Error(reply.exceptionDetails.exception?.description ?? reply.exceptionDetails.text);
      return reply.result.value as T;
    },
    async goto(url: string): Promise<void> {
      const loaded = new Promise<void>((resolve) => {
        listeners.push((method, _params, from) => {
          if (method === 'Page.loadEventFired' && from === sessionId) resolve();
        });
      });
      await send('Page.navigate', { url }, sessionId);
      await loaded;
      listeners.length = 0;
    },
    async clearHttpCache(): Promise<void> {
      // A command of the Network domain that works without enabling its recording.
      await send('Network.clearBrowserCache', {}, sessionId);
    },
    async addInitScript(source: string): Promise<void> {
      await send('Page.addScriptToEvaluateOnNewDocument', { source }, sessionId);
    },
    async close(): Promise<void> {
      await send('Browser.close').catch(() => {});
      await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
