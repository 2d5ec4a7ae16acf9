/**
 * GET /api/v1/ens/resolve/:name (INTERFACE.md 4.4) against a real chain: anvil with ENS
 * contracts (tests/helpers/ens-anvil.ts), read through viem and the Universal Resolver, with the
 * meta-address bytes in the embedded store (nothing else configured).
 */
import { createServer, type Server, type Socket } from 'node:net';
import { bytesToHex, cidForBytes, dagPbCidForBytes, encodeContenthash, generateKeys } from '@wraith-pq/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LocalContentStore } from '../../lib/ipfs/local-store.ts';
import { resolveRecipientName } from '../../lib/names/resolve.ts';
import { startEnsChain, type EnsChain } from '../helpers/ens-anvil.ts';
import { configureIpfs, legacyMetaAddress, newMetaAddress, resolveEns, upload } from '../ipfs/setup.ts';
import { captureLog } from '../helpers/api.ts';

let chain: EnsChain;
let env: Record<string, string>;
let storeDir: string;
let nameCounter = 0;

beforeAll(async () => {
  chain = await startEnsChain();
  env = { ETH_RPC_URL: chain.rpcUrl, ENS_UNIVERSAL_RESOLVER: chain.universalResolver };
});
afterAll(async () => {
  await chain?.stop();
});
beforeEach(async () => {
  ({ storeDir } = await configureIpfs(env));
});

/** A name no other test uses, registered with the public resolver. */
async function registeredName(label = 'user'): Promise<string> {
  const name = `${label}${++nameCounter}.eth`;
  await chain.register(name);
  return name;
}

/** Upload a fresh meta-address through the API (embedded store). */
async function uploaded() {
  const meta = newMetaAddress();
  const response = await upload({ meta_address: meta.hex });
  expect(response.status).toBe(200);
  return { meta, cid: response.json.cid as string, textRecord: response.json.text_record as string };
}

describe('GET /api/v1/ens/resolve/:name', () => {
  it('resolves the stealth-meta text record (ipfs://<cid>) to the meta-address and its keys', async () => {
    const name = await registeredName('alice');
    const { meta, cid, textRecord } = await uploaded();
    await chain.setText(name, 'stealth-meta', textRecord);
    const response = await resolveEns(name);
    expect(response.status).toBe(200);
    expect(response.json).toEqual({
      meta_address: meta.hex,
      spending_pk: bytesToHex(meta.bytes.subarray(1, 34)),
      viewing_pk: bytesToHex(meta.bytes.subarray(34)),
      ipfs_cid: cid,
      ens_name: name,
    });
  });

  it.each([
    ['/ipfs/<cid>', (cid: string) => `/ipfs/${cid}`],
    ['a bare CID', (cid: string) => cid],
    ['ipfs://<cid> with surrounding whitespace', (cid: string) => ` ipfs://${cid} `],
  ])('accepts a text record written as %s', async (_, record) => {
    const name = await registeredName();
    const { meta, cid } = await uploaded();
    await chain.setText(name, 'stealth-meta', record(cid));
    const response = await resolveEns(name);
    expect(response.status).toBe(200);
    expect(response.json.meta_address).toBe(meta.hex);
  });

  it('falls back to the EIP-1577 content hash when the text record is absent', async () => {
    const name = await registeredName('bob');
    const { meta, cid } = await uploaded();
    await chain.setContenthash(name, encodeContenthash(cid));
    const response = await resolveEns(name);
    expect(response.status).toBe(200);
    expect(response.json.meta_address).toBe(meta.hex);
    expect(response.json.ipfs_cid).toBe(cid);
  });

  it('falls back to a content hash holding the dag-pb CID plain `ipfs add` gives (0xe3 01 01 70 12 20 …)', async () => {
    const name = await registeredName('carol');
    const { meta } = await uploaded();
    const v0 = dagPbCidForBytes(meta.bytes);
    const contenthash = encodeContenthash(v0);
    expect(bytesToHex(contenthash.subarray(0, 6))).toBe('e30101701220');
    await chain.setContenthash(name, contenthash);
    const response = await resolveEns(name);
    expect(response.status).toBe(200);
    expect(response.json.meta_address).toBe(meta.hex);
    expect(response.json.ipfs_cid).toBe(v0.toV1().toString()); // EIP-1577 stores CIDv1
  });

  it('prefers the text record over the content hash', async () => {
    const name = await registeredName();
    const inText = await uploaded();
    const inHash = await uploaded();
    await chain.setText(name, 'stealth-meta', inText.textRecord);
    await chain.setContenthash(name, encodeContenthash(inHash.cid));
    const response = await resolveEns(name);
    expect(response.json.meta_address).toBe(inText.meta.hex);
  });

  it('reads the text record named by ENS_TEXT_KEY', async () => {
    await configureIpfs({ ...env, ENS_TEXT_KEY: 'com.example.wraith', IPFS_STORE_DIR: storeDir });
    const name = await registeredName();
    const standard = await uploaded();
    const custom = await uploaded();
    await chain.setText(name, 'stealth-meta', standard.textRecord);
    await chain.setText(name, 'com.example.wraith', custom.textRecord);
    const response = await resolveEns(name);
    expect(response.json.meta_address).toBe(custom.meta.hex);
  });

  it('answers 404 NO_STEALTH_RECORD for a registered name with neither record', async () => {
    const name = await registeredName('carol');
    await chain.setText(name, 'url', 'https://carol.example');
    const response = await resolveEns(name);
    expect(response.status).toBe(404);
    expect(response.json.error.code).toBe('NO_STEALTH_RECORD');
  });

  it('answers 404 NAME_NOT_FOUND for a name that is not registered', async () => {
    const response = await resolveEns('nobody-here.eth');
    expect(response.status).toBe(404);
    expect(response.json.error.code).toBe('NAME_NOT_FOUND');
  });

  it('answers 404 NAME_NOT_FOUND for a name registered without a resolver', async () => {
    const name = `bare${++nameCounter}.eth`;
    await chain.register(name, { resolver: null });
    const response = await resolveEns(name);
    expect(response.status).toBe(404);
    expect(response.json.error.code).toBe('NAME_NOT_FOUND');
  });

  it('answers 404 NO_STEALTH_RECORD when the content hash is not in the IPFS namespace (IPNS)', async () => {
    const name = await registeredName();
    await chain.setContenthash(name, `0xe50101720024080112${'ab'.repeat(32)}`);
    const response = await resolveEns(name);
    expect(response.status).toBe(404);
    expect(response.json.error.code).toBe('NO_STEALTH_RECORD');
  });

  it.each([
    ['a web URL', 'https://alice.example/meta.bin'],
    ['ipfs:// with garbage', 'ipfs://not-a-cid'],
    ['a CID with a path', `ipfs://${cidForBytes(new Uint8Array(1))}/meta.bin`],
  ])('answers 400 INVALID_CID when the text record is %s, not a 500', async (_, record) => {
    const name = await registeredName();
    await chain.setText(name, 'stealth-meta', record);
    const response = await resolveEns(name);
    expect(response.status).toBe(400);
    expect(response.json.error.code).toBe('INVALID_CID');
    expect(response.json.error.message).toMatch(/stealth-meta text record/);
  });

  it('answers 400 INVALID_CID when the content hash is in the IPFS namespace but holds no valid CID', async () => {
    const name = await registeredName();
    await chain.setContenthash(name, '0xe30101701220abcd');
    const response = await resolveEns(name);
    expect(response.status).toBe(400);
    expect(response.json.error.code).toBe('INVALID_CID');
  });

  it('answers 400 LEGACY_META_ADDRESS when the record points to a version-1 meta-address', async () => {
    const name = await registeredName('legacy');
    const cid = await new LocalContentStore(storeDir).put(legacyMetaAddress());
    await chain.setText(name, 'stealth-meta', `ipfs://${cid}`);
    const response = await resolveEns(name);
    expect(response.status).toBe(400);
    expect(response.json.error.code).toBe('LEGACY_META_ADDRESS');
    expect(response.json.error.message).toMatch(/sender can derive/);
  });

  it('answers 400 INVALID_META_ADDRESS when the record points to bytes that are not a meta-address', async () => {
    const name = await registeredName();
    const cid = await new LocalContentStore(storeDir).put(new TextEncoder().encode('{"not":"a meta-address"}'));
    await chain.setText(name, 'stealth-meta', `ipfs://${cid}`);
    const response = await resolveEns(name);
    expect(response.status).toBe(400);
    expect(response.json.error.code).toBe('INVALID_META_ADDRESS');
    expect(response.json.error.message).toMatch(/record/);
  });

  it('answers 404 NOT_FOUND when the record points to a CID nobody stores', async () => {
    const name = await registeredName();
    await chain.setText(name, 'stealth-meta', `ipfs://${cidForBytes(generateKeys().metaAddress)}`);
    const response = await resolveEns(name);
    expect(response.status).toBe(404);
    expect(response.json.error.code).toBe('NOT_FOUND');
  });

  it('normalises the name with ENSIP-15 before looking it up', async () => {
    const name = await registeredName('dave');
    const { meta, textRecord } = await uploaded();
    await chain.setText(name, 'stealth-meta', textRecord);
    const response = await resolveEns(` ${name.toUpperCase()} `);
    expect(response.status).toBe(200);
    expect(response.json.ens_name).toBe(name);
    expect(response.json.meta_address).toBe(meta.hex);
  });

  it.each(['alice', 'alice.sui', 'a..eth', '.eth', 'ali ce.eth', 'a_b.eth', 'xn--abc.eth', 'a'.repeat(300) + '.eth'])(
    'answers 400 INVALID_NAME for %j',
    async (name) => {
      const response = await resolveEns(name);
      expect(response.status).toBe(400);
      expect(response.json.error.code).toBe('INVALID_NAME');
    },
  );

  it('resolves a subname answered by an ENSIP-10 wildcard resolver on its parent', async () => {
    const { meta, textRecord } = await uploaded();
    const parent = `wild${++nameCounter}.eth`;
    await chain.setWildcardResolver(parent, { 'stealth-meta': textRecord });
    const response = await resolveEns(`pay.${parent}`);
    expect(response.status).toBe(200);
    expect(response.json.meta_address).toBe(meta.hex);
    expect(response.json.ens_name).toBe(`pay.${parent}`);
  });

  it('looks the name up afresh on every request: a changed record is served at once', async () => {
    const name = await registeredName();
    const first = await uploaded();
    await chain.setText(name, 'stealth-meta', first.textRecord);
    expect((await resolveEns(name)).json.meta_address).toBe(first.meta.hex);
    const second = await uploaded();
    await chain.setText(name, 'stealth-meta', second.textRecord);
    expect((await resolveEns(name)).json.meta_address).toBe(second.meta.hex);
  });
});

describe('Ethereum RPC failures', () => {
  it('answers 502 UPSTREAM_ERROR when the RPC cannot be reached, without naming its URL in the answer or the log', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/v2/secret-api-key`;
    await configureIpfs({ ...env, ETH_RPC_URL: url, LOG_LEVEL: 'debug' });
    const { result: response, log } = await captureLog(() => resolveEns('alice.eth'));
    expect(response.status).toBe(502);
    expect(response.json.error.code).toBe('UPSTREAM_ERROR');
    expect(response.text).not.toContain('secret-api-key');
    expect(log).toContain('"status":502');
    expect(log).not.toContain('secret-api-key');
  });

  it('answers 504 UPSTREAM_TIMEOUT when the RPC does not answer within UPSTREAM_TIMEOUT_MS', async () => {
    const silent = await silentServer();
    try {
      await configureIpfs({ ...env, ETH_RPC_URL: silent.url, UPSTREAM_TIMEOUT_MS: '300' });
      const started = Date.now();
      const response = await resolveEns('alice.eth');
      expect(response.status).toBe(504);
      expect(response.json.error.code).toBe('UPSTREAM_TIMEOUT');
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await silent.close();
    }
  });

  it('answers 502 when ENS_UNIVERSAL_RESOLVER has no contract on this chain', async () => {
    await configureIpfs({ ...env, ENS_UNIVERSAL_RESOLVER: `0x${'de'.repeat(20)}` });
    const response = await resolveEns('alice.eth');
    expect(response.status).toBe(502);
    expect(response.json.error.message).toMatch(/ENS_UNIVERSAL_RESOLVER/);
  });
});

describe('resolveRecipientName (used by private channels)', () => {
  it('resolves a .eth name to the decoded meta-address', async () => {
    const name = await registeredName('erin');
    const { meta, cid, textRecord } = await uploaded();
    await chain.setText(name, 'stealth-meta', textRecord);
    const resolved = await resolveRecipientName(name);
    expect(resolved).toMatchObject({ service: 'ens', name, cid });
    expect(resolved.metaAddress.bytes).toEqual(meta.bytes);
    expect(resolved.metaAddress.spendingPublicKey).toEqual(meta.bytes.subarray(1, 34));
  });
});

// --- helpers -----------------------------------------------------------------------------------

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** An HTTP endpoint that accepts connections and never answers. */
async function silentServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
