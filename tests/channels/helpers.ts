/**
 * Calling the /api/v1/yellow routes as Next.js would, with a controlled environment
 * (tests/helpers/api.ts), plus the steps the channel suites repeat.
 */
import { expect } from 'vitest';
import * as configRoute from '../../app/api/v1/yellow/config/route.ts';
import * as createRoute from '../../app/api/v1/yellow/channel/create/route.ts';
import * as discoverRoute from '../../app/api/v1/yellow/channel/discover/route.ts';
import * as fundRoute from '../../app/api/v1/yellow/channel/fund/route.ts';
import * as closeRoute from '../../app/api/v1/yellow/channel/close/route.ts';
import * as statusRoute from '../../app/api/v1/yellow/channel/[id]/status/route.ts';
import * as keysRoute from '../../app/api/v1/keys/generate/route.ts';
import * as announcementsRoute from '../../app/api/v1/registry/announcements/route.ts';
import * as stealthCreateRoute from '../../app/api/v1/stealth/create/route.ts';
import { closeChannelStore } from '../../lib/channels/instance.ts';
import { call, configure, type CallInit, type CallResult, type Handler } from '../helpers/api.ts';

/** The YELLOW_* variables (lib/channels/config.ts); `configureChannels` unsets the ones not given. */
export const YELLOW_VARIABLES = ['YELLOW_WS_URL', 'YELLOW_CUSTODY_ADDRESS', 'YELLOW_ADJUDICATOR_ADDRESS', 'YELLOW_CHAIN_ID', 'YELLOW_TOKENS'];

/** A fresh server: test environment plus `overrides`, empty memory registry and channel table. */
export async function configureChannels(overrides: Record<string, string | undefined> = {}): Promise<void> {
  for (const name of YELLOW_VARIABLES) delete process.env[name];
  await closeChannelStore();
  await configure(overrides);
}

type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';
type Routes = Record<string, { path: string; module: Record<Method, Handler> }>;

export const routes = {
  config: { path: '/api/v1/yellow/config', module: configRoute },
  create: { path: '/api/v1/yellow/channel/create', module: createRoute },
  discover: { path: '/api/v1/yellow/channel/discover', module: discoverRoute },
  fund: { path: '/api/v1/yellow/channel/fund', module: fundRoute },
  close: { path: '/api/v1/yellow/channel/close', module: closeRoute },
  keys: { path: '/api/v1/keys/generate', module: keysRoute },
  announcements: { path: '/api/v1/registry/announcements', module: announcementsRoute },
  stealthCreate: { path: '/api/v1/stealth/create', module: stealthCreateRoute },
} satisfies Routes;

export type RouteName = keyof typeof routes;

/** POST a JSON body (or GET without one) to a route; `init.method` overrides. */
export function send(name: RouteName, body?: unknown, init: CallInit = {}): Promise<CallResult> {
  const route = routes[name];
  const method = (init.method ?? (body === undefined ? 'GET' : 'POST')) as Method;
  return call(route.module[method], route.path, { ...init, method, ...(body === undefined ? {} : { body }) });
}

/** GET /api/v1/yellow/channel/:id/status with `id` as given (not encoded). */
export function getStatus(id: string, init: CallInit = {}): Promise<CallResult> {
  return call(statusRoute.GET, `/api/v1/yellow/channel/${id}/status`, init);
}

export type KeyBundle = { spending_pk: string; spending_sk: string; viewing_pk: string; viewing_sk: string; meta_address: string };

export async function newRecipient(): Promise<KeyBundle> {
  const response = await send('keys', undefined, { method: 'POST' });
  expect(response.status).toBe(200);
  return response.json as KeyBundle;
}

export function discoverKeys(keys: KeyBundle): { viewing_sk: string; spending_pk: string; spending_sk: string } {
  return { viewing_sk: keys.viewing_sk, spending_pk: keys.spending_pk, spending_sk: keys.spending_sk };
}

export type CreatedChannel = {
  channel_id: string;
  stealth_address: string;
  stealth_sui_address: string;
  token: string;
  amount: string;
  announcement: { id: number; ephemeral_key: string; view_tag: number; timestamp: number; channel_id: string; tx_hash: string; amount: string; chain: string };
};

/** Open a channel and expect 201. */
export async function openChannel(body: Record<string, unknown>): Promise<CreatedChannel> {
  const response = await send('create', { token: 'USDC', amount: '10', ...body });
  expect(response.status, response.text).toBe(201);
  return response.json as CreatedChannel;
}

/** Random bytes as lowercase hex. */
export function randomHex(bytes: number): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, '0')).join('');
}
