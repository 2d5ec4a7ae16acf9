/**
 * UPSTREAM_TIMEOUT_MS bounds a request's wait on the chain's RPC as a whole (API.md "Timeouts"):
 * the ERC-6538 read and a verified publish answer 504 UPSTREAM_TIMEOUT once it has passed, even
 * though the server's RPC client retries a read that timed out (up to three more attempts, which
 * would make a client wait four times the setting). The RPC is anvil behind the fault proxy
 * (tests/helpers/rpc-fault-proxy.ts), which lets every other call through and holds only the
 * method under test: the indexer keeps working, and the proxy counts the attempts.
 *
 * Needs a production build (`npm run build`).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesToHex, createStealthPayment, generateKeys } from '@wraith-pq/sdk';
import { ERC6538_REGISTRY_ADDRESS } from '@wraith-pq/sdk/evm';
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import { startAnvil, type Anvil } from '../helpers/anvil.ts';
import { startRpcFaultProxy, type RpcFaultProxy } from '../helpers/rpc-fault-proxy.ts';
import { http, startServer, type RunningServer } from '../helpers/server.ts';

const TIMEOUT_MS = 600;
const REGISTRY_CODE = readFileSync(new URL('../fixtures/erc6538/registry.runtime.hex', import.meta.url), 'utf8').trim();

let anvil: Anvil;
let proxy: RpcFaultProxy;
let server: RunningServer;

beforeAll(async () => {
  anvil = await startAnvil();
  await fetch(anvil.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_setCode', params: [ERC6538_REGISTRY_ADDRESS, REGISTRY_CODE] }),
  });
  proxy = await startRpcFaultProxy({ target: anvil.rpcUrl, modes: ['hang'], hangMs: 20_000 });
  server = await startServer({
    env: {
      REGISTRY_URL: 'memory:',
      RATE_LIMIT_RPS: '0',
      LOG_LEVEL: 'warn',
      CHAIN_RPC_URL: proxy.url,
      CHAIN_NAME: 'anvil',
      INDEXER_CONFIRMATIONS: '0',
      REGISTRY_PUBLISH: 'verified',
      UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS),
    },
  });
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await proxy?.close();
  await anvil?.stop();
});

/** `path` (a GET, or a POST of `body`) while the RPC holds every `method` call: its answer, and the attempts the RPC saw by then. */
async function whileHeld(method: string, path: string, body?: unknown) {
  proxy.configure({ failureRate: 1, faultMethods: [method] });
  proxy.resetStats();
  try {
    const response = await http(server, path, body === undefined ? {} : { body });
    return { response, attempts: proxy.stats.methods[method] ?? 0 };
  } finally {
    proxy.configure({ failureRate: 0, faultMethods: null });
  }
}

describe('UPSTREAM_TIMEOUT_MS bounds the whole wait on the chain RPC', () => {
  it('answers an ERC-6538 read the RPC does not answer with 504 within the setting: no more attempts than fit in it', async () => {
    const registrant = privateKeyToAccount(generatePrivateKey()).address;
    const { response, attempts } = await whileHeld('eth_call', `/api/v1/erc6538/${registrant}`);
    expect(response.status).toBe(504);
    expect(response.json.error).toMatchObject({ code: 'UPSTREAM_TIMEOUT', message: expect.stringContaining(`${TIMEOUT_MS} ms`) });
    // The old wait made four attempts first. A retry starts only after the first attempt's own
    // timeout and a 100 ms pause, so one may arrive as the 504 is read.
    expect(attempts).toBeLessThanOrEqual(2);
    expect(response.text).not.toContain(proxy.url);
    // The RPC answering again, the same read answers (nothing registered there).
    expect((await http(server, `/api/v1/erc6538/${registrant}`)).json.error.code).toBe('NO_STEALTH_RECORD');
  });

  it('answers a verified publish whose receipt the RPC does not send with 504 within the setting, storing nothing', async () => {
    const payment = createStealthPayment(generateKeys().metaAddress);
    const body = { ephemeral_key: bytesToHex(payment.ephemeralCiphertext), view_tag: payment.viewTag, tx_hash: `0x${'ab'.repeat(32)}` };
    const { response, attempts } = await whileHeld('eth_getTransactionReceipt', '/api/v1/registry/announcements', body);
    expect(response.status).toBe(504);
    expect(response.json.error.code).toBe('UPSTREAM_TIMEOUT');
    expect(attempts).toBeLessThanOrEqual(2);
    // The publisher may retry: now the RPC answers that no such transaction was mined.
    const again = await http(server, '/api/v1/registry/announcements', { body });
    expect(again.status).toBe(422);
    expect(again.json.error.code).toBe('TX_NOT_VERIFIED');
  });
});
