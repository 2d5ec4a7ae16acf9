/**
 * POST /api/v1/ipfs/upload and GET /api/v1/ipfs/:cid with nothing configured (INTERFACE.md
 * 4.5): the embedded content-addressed store keeps the raw bytes under the CID real IPFS gives
 * them, and every download is verified against its CID.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bytesToHex, cidForBytes, dagPbCidForBytes, formatMetaAddressUri, generateKeys, parseCid } from '@wraith-pq/sdk';
import { base36 } from 'multiformats/bases/base36';
import { base58btc } from 'multiformats/bases/base58';
import { CID } from 'multiformats/cid';
import { identity } from 'multiformats/hashes/identity';
import { beforeEach, describe, expect, it } from 'vitest';
import { configureIpfs, download, legacyMetaAddress, newMetaAddress, upload } from './setup.ts';
import { call } from '../helpers/api.ts';
import * as ipfsGetRoute from '../../app/api/v1/ipfs/[cid]/route.ts';

let storeDir: string;
beforeEach(async () => {
  ({ storeDir } = await configureIpfs());
});

describe('POST /api/v1/ipfs/upload (embedded store)', () => {
  it('answers the CIDv1 (raw, sha2-256) real IPFS gives the meta-address bytes, and the ipfs:// record', async () => {
    const meta = newMetaAddress();
    const response = await upload({ meta_address: meta.hex });
    expect(response.status).toBe(200);
    const expected = cidForBytes(meta.bytes).toString();
    expect(response.json).toEqual({ cid: expected, text_record: `ipfs://${expected}` });
    expect(expected).toMatch(/^bafkrei[a-z2-7]{52}$/);
  });

  it('stores the 1218 raw bytes, not hex text', async () => {
    const meta = newMetaAddress();
    const { json } = await upload({ meta_address: meta.hex });
    const files = readdirSync(storeDir).filter((f) => !f.endsWith('.tmp'));
    // Under its raw CID, and under the CID plain `ipfs add` gives it (the Qm… form, as CIDv1).
    expect(files.sort()).toEqual([json.cid, dagPbCidForBytes(meta.bytes).toV1().toString()].sort());
    for (const file of files) {
      const stored = new Uint8Array(readFileSync(join(storeDir, file)));
      expect(stored.length).toBe(1218);
      expect(stored).toEqual(meta.bytes);
    }
  });

  it.each([
    ['0x-prefixed hex', (hex: string) => `0x${hex}`],
    ['upper-case hex', (hex: string) => hex.toUpperCase()],
    ['the ERC-5564 URI st:eth:0x…', (hex: string) => formatMetaAddressUri(Uint8Array.from(Buffer.from(hex, 'hex')), 'eth')],
  ])('gives the same CID for the meta-address written as %s', async (_, spell) => {
    const meta = newMetaAddress();
    const plain = await upload({ meta_address: meta.hex });
    const spelled = await upload({ meta_address: spell(meta.hex) });
    expect(spelled.status).toBe(200);
    expect(spelled.json.cid).toBe(plain.json.cid);
  });

  it('is idempotent: uploading the same meta-address again stores one file under one CID', async () => {
    const meta = newMetaAddress();
    const first = await upload({ meta_address: meta.hex, name: 'alice' });
    const second = await upload({ meta_address: meta.hex, name: 'alice again' });
    expect(second.json).toEqual(first.json);
    expect(readdirSync(storeDir)).toHaveLength(2); // the raw CID and the dag-pb CID, once each
  });

  it.each([
    ['not hex', () => 'zz'.repeat(1218)],
    ['too short', () => newMetaAddress().hex.slice(0, -2)],
    ['an unknown version byte', () => `03${newMetaAddress().hex.slice(2)}`],
    ['a spending key that is not a curve point', () => `02${'ff'.repeat(33)}${newMetaAddress().hex.slice(68)}`],
  ])('refuses a meta-address that is %s with 400 INVALID_META_ADDRESS and stores nothing', async (_, metaAddress) => {
    const response = await upload({ meta_address: metaAddress() });
    expect(response.status).toBe(400);
    expect(response.json.error.code).toBe('INVALID_META_ADDRESS');
    expect(readdirSync(storeDir)).toEqual([]);
  });

  it('refuses a legacy version-1 meta-address with 400 LEGACY_META_ADDRESS and says why', async () => {
    const response = await upload({ meta_address: bytesToHex(legacyMetaAddress()) });
    expect(response.status).toBe(400);
    expect(response.json.error.code).toBe('LEGACY_META_ADDRESS');
    expect(response.json.error.message).toMatch(/sender can derive/);
    expect(readdirSync(storeDir)).toEqual([]);
  });

  it.each([
    ['no meta_address', {}],
    ['a number as meta_address', { meta_address: 42 }],
    ['an empty pin name', { meta_address: 'aa', name: '' }],
    ['a pin name over 100 characters', { meta_address: 'aa', name: 'n'.repeat(101) }],
  ])('rejects a body with %s as 400 VALIDATION_ERROR', async (_, body) => {
    const response = await upload(body);
    expect(response.status).toBe(400);
    expect(response.json.error.code).toBe('VALIDATION_ERROR');
  });

  it('is a write: it needs the API key when API_KEY is set', async () => {
    await configureIpfs({ API_KEY: 'k'.repeat(32) });
    const meta = newMetaAddress();
    expect((await upload({ meta_address: meta.hex })).status).toBe(401);
    expect((await upload({ meta_address: meta.hex }, { headers: { 'x-api-key': 'k'.repeat(32) } })).status).toBe(200);
  });
});

describe('GET /api/v1/ipfs/:cid (embedded store)', () => {
  it('returns the uploaded bytes as application/octet-stream', async () => {
    const meta = newMetaAddress();
    const { json } = await upload({ meta_address: meta.hex });
    const response = await download(json.cid);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/octet-stream');
    expect(response.headers.get('content-length')).toBe('1218');
    expect(response.bytes).toEqual(meta.bytes);
  });

  it.each([
    ['base32 (as uploaded)', (cid: string) => cid],
    ['base58btc', (cid: string) => parseCid(cid).toString(base58btc)],
    ['base36', (cid: string) => parseCid(cid).toString(base36)],
    ['ipfs://<cid>, percent-encoded in the path', (cid: string) => `ipfs://${cid}`],
  ])('finds the content by its CID written in %s', async (_, spell) => {
    const meta = newMetaAddress();
    const { json } = await upload({ meta_address: meta.hex });
    const response = await download(spell(json.cid));
    expect(response.status).toBe(200);
    expect(response.bytes).toEqual(meta.bytes);
  });

  it('finds the content by the CIDv0 (dag-pb) `ipfs add` gives the same bytes, as ENS content hashes often hold', async () => {
    const meta = newMetaAddress();
    await upload({ meta_address: meta.hex });
    const v0 = dagPbCidForBytes(meta.bytes).toString();
    expect(v0).toMatch(/^Qm/);
    const response = await download(v0);
    expect(response.status).toBe(200);
    expect(response.bytes).toEqual(meta.bytes);
  });

  it('answers 404 NOT_FOUND for a valid CID nobody uploaded', async () => {
    const response = await download(cidForBytes(generateKeys().metaAddress).toString());
    expect(response.status).toBe(404);
    expect(response.json.error.code).toBe('NOT_FOUND');
  });

  it.each([
    ['plain text', 'hello'],
    ['a truncated CID', 'bafkreifjjcie6lypi6ny7amxnfftagclbuxndqonfipmb64f2km2dev'],
    ['a CID with a path after it (one percent-encoded segment)', encodeURIComponent('bafkreifjjcie6lypi6ny7amxnfftagclbuxndqonfipmb64f2km2devei4/x')],
    ['hex', 'ab'.repeat(34)],
    ['malformed percent-encoding', '%E0%A4%A'],
    ['a CID with an unsupported hash (identity)', CID.createV1(0x55, identity.digest(new Uint8Array(8))).toString()],
  ])('answers 400 INVALID_CID for %s', async (_, text) => {
    const response = await call(ipfsGetRoute.GET, `/api/v1/ipfs/${text}`);
    expect(response.status).toBe(400);
    expect(response.json.error.code).toBe('INVALID_CID');
  });

  it('refuses a damaged store file with 422 CONTENT_MISMATCH instead of serving it', async () => {
    const meta = newMetaAddress();
    const { json } = await upload({ meta_address: meta.hex });
    writeFileSync(join(storeDir, json.cid), newMetaAddress().bytes);
    const response = await download(json.cid);
    expect(response.status).toBe(422);
    expect(response.json.error.code).toBe('CONTENT_MISMATCH');
  });

  it('does not accept uploads on the download path (405 with Allow)', async () => {
    const response = await call(ipfsGetRoute.POST, `/api/v1/ipfs/${cidForBytes(new Uint8Array(1))}`, { body: {} });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toContain('GET');
  });
});
