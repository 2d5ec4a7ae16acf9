/**
 * The API's route handlers, imported as Next.js would load them, and small helpers for the
 * recurring steps of a payment (keys, create, publish, scan) through those handlers.
 */
import { expect } from 'vitest';
import * as keysRoute from '../../app/api/v1/keys/generate/route.ts';
import * as createRoute from '../../app/api/v1/stealth/create/route.ts';
import * as scanRoute from '../../app/api/v1/stealth/scan/route.ts';
import * as announcementsRoute from '../../app/api/v1/registry/announcements/route.ts';
import * as statsRoute from '../../app/api/v1/registry/stats/route.ts';
import * as erc6538Route from '../../app/api/v1/erc6538/[address]/route.ts';
import * as catchAllRoute from '../../app/api/v1/[...path]/route.ts';
import * as apiRootRoute from '../../app/api/v1/route.ts';
import * as healthRoute from '../../app/health/route.ts';
import { call, type CallInit, type CallResult } from './api.ts';

export const routes = {
  keys: { path: '/api/v1/keys/generate', module: keysRoute },
  create: { path: '/api/v1/stealth/create', module: createRoute },
  scan: { path: '/api/v1/stealth/scan', module: scanRoute },
  announcements: { path: '/api/v1/registry/announcements', module: announcementsRoute },
  stats: { path: '/api/v1/registry/stats', module: statsRoute },
  erc6538: { path: '/api/v1/erc6538/0x6538E6bf4B0eBd30A8Ea093027Ac2422ce5d6538', module: erc6538Route },
  catchAll: { path: '/api/v1/unknown/thing', module: catchAllRoute },
  apiRoot: { path: '/api/v1', module: apiRootRoute },
  health: { path: '/health', module: healthRoute },
} as const;

export type RouteName = keyof typeof routes;
export type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';

/** Send `method` to a route (query string appended to its path). */
export function request(name: RouteName, method: Method, init: CallInit & { query?: string } = {}): Promise<CallResult> {
  const route = routes[name];
  const path = init.query === undefined ? route.path : `${route.path}?${init.query}`;
  return call(route.module[method], path, { ...init, method });
}

export type KeyBundle = {
  spending_pk: string;
  spending_sk: string;
  viewing_pk: string;
  viewing_sk: string;
  meta_address: string;
  view_tag: number;
  tracking_key: string;
  erc8441_meta_address: string;
};

export async function generateKeys(): Promise<KeyBundle> {
  const response = await request('keys', 'POST');
  expect(response.status).toBe(200);
  return response.json as KeyBundle;
}

export type CreatedPayment = {
  scheme_id: 1000 | 3;
  stealth_address: string;
  stealth_sui_address: string;
  ephemeral_ciphertext: string;
  view_tag: number;
  /** ERC-5564 metadata to announce: view tag + sealed note (93 bytes, hex). */
  metadata: string;
  announcement: Record<string, unknown>;
};

export async function createPayment(metaAddress: string): Promise<CreatedPayment> {
  const response = await request('create', 'POST', { body: { meta_address: metaAddress } });
  expect(response.status).toBe(200);
  return response.json as CreatedPayment;
}

let txCounter = 0;

/** A unique tx hash for tests. */
export function txHash(): string {
  txCounter++;
  return `0x${txCounter.toString(16).padStart(64, '0')}`;
}

/** Publish a created payment; returns the registry id. */
export async function publish(payment: Pick<CreatedPayment, 'ephemeral_ciphertext' | 'view_tag'>, extra: Record<string, unknown> = {}): Promise<number> {
  const response = await request('announcements', 'POST', {
    body: { ephemeral_key: payment.ephemeral_ciphertext, view_tag: payment.view_tag, tx_hash: txHash(), ...extra },
  });
  expect(response.status).toBe(201);
  return (response.json as { id: number }).id;
}

/** Random bytes as lowercase hex. */
export function randomHex(bytes: number): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString('hex');
}

/** A well-formed announcement body that belongs to nobody. */
export function foreignAnnouncement(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { ephemeral_key: randomHex(1088), view_tag: Math.floor(Math.random() * 256), tx_hash: txHash(), ...overrides };
}

/** Scan keys of a bundle (full scan unless `viewOnly`). */
export function scanKeys(keys: KeyBundle, viewOnly = false): Record<string, string> {
  return {
    viewing_sk: keys.viewing_sk,
    spending_pk: keys.spending_pk,
    ...(viewOnly ? {} : { spending_sk: keys.spending_sk }),
  };
}
