/**
 * API key on writes (API.md "Cross-cutting behaviour"): with API_KEY set, every request under
 * /api/v1 other than GET/HEAD/OPTIONS needs it, as X-API-Key or Authorization: Bearer.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { configure } from '../helpers/api.ts';
import { foreignAnnouncement, request, type RouteName } from '../helpers/routes.ts';

const API_KEY = 'test-api-key-0123456789abcdef';

const WRITES: [RouteName, unknown][] = [
  ['keys', undefined],
  ['create', { meta_address: 'x' }],
  ['scan', {}],
  ['announcements', foreignAnnouncement()],
];

describe('with API_KEY set', () => {
  beforeEach(() => configure({ API_KEY }));

  it.each(WRITES)('refuses POST %s without a key with 401 UNAUTHORIZED', async (route, body) => {
    const response = await request(route, 'POST', { body });
    expect(response.status).toBe(401);
    expect(response.json.error.code).toBe('UNAUTHORIZED');
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
  });

  it.each([
    ['a wrong X-API-Key', { 'x-api-key': 'test-api-key-0123456789abcdeX' }],
    ['the key with a suffix', { 'x-api-key': `${API_KEY}x` }],
    ['a prefix of the key', { 'x-api-key': API_KEY.slice(0, -1) }],
    ['an empty X-API-Key', { 'x-api-key': '' }],
    ['a wrong bearer token', { authorization: 'Bearer nope' }],
    ['the key under another scheme', { authorization: `Basic ${API_KEY}` }],
    ['the key as a bare Authorization value', { authorization: API_KEY }],
  ])('refuses %s with 401', async (_, headers) => {
    const response = await request('announcements', 'POST', { body: foreignAnnouncement(), headers });
    expect(response.status).toBe(401);
    expect(response.text).not.toContain(API_KEY);
  });

  it('accepts the key in X-API-Key', async () => {
    const response = await request('announcements', 'POST', { body: foreignAnnouncement(), headers: { 'x-api-key': API_KEY } });
    expect(response.status).toBe(201);
  });

  it('accepts the key as an Authorization bearer token, scheme in any case', async () => {
    for (const scheme of ['Bearer', 'bearer']) {
      const response = await request('announcements', 'POST', {
        body: foreignAnnouncement(),
        headers: { authorization: `${scheme} ${API_KEY}` },
      });
      expect(response.status).toBe(201);
    }
  });

  it('checks the key before reading the body: a bad body without a key is still 401', async () => {
    const response = await request('scan', 'POST', { body: 'not json', headers: { 'content-type': 'text/plain' } });
    expect(response.status).toBe(401);
  });

  it('keeps reads public', async () => {
    expect((await request('announcements', 'GET')).status).toBe(200);
    expect((await request('stats', 'GET')).status).toBe(200);
    expect((await request('health', 'GET')).status).toBe(200);
  });

  it('answers CORS preflights without a key', async () => {
    const response = await request('announcements', 'OPTIONS', {
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
    });
    expect(response.status).toBe(204);
  });
});

describe('without API_KEY', () => {
  beforeEach(() => configure());

  it('accepts writes without a key', async () => {
    expect((await request('announcements', 'POST', { body: foreignAnnouncement() })).status).toBe(201);
    expect((await request('keys', 'POST')).status).toBe(200);
  });
});
