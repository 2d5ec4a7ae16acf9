/**
 * Pay a name from any wallet (issue 33), end to end on anvil with the real server: the ENS
 * registry and OffchainResolver from their npm artifacts, the UniversalResolver stand-in, and the
 * server's gateway (/api/v1/ccip) answering every lookup with a fresh one-time address.
 *
 * A plain wallet (viem `getEnsAddress`, ethers `resolveName`, a dev account sending coin and
 * tokens; no Wraith code) pays two names; the server sees the funds, publishes the payments'
 * announcements, and the recipients' ordinary registry scan finds them and claims them to exactly
 * 0 left: the coin as today, the tokens (which came with no coin) through the gasless claim of
 * issue 31 (the chain carries EntryPoint v0.8, the project's paymaster and the alto bundler). Around it: signatures on registration, tampered and expired answers, a wrong sender,
 * unknown labels, a lookup flood and a restart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JsonRpcProvider, Network } from 'ethers';
import {
  createPublicClient,
  decodeAbiParameters,
  encodeAbiParameters,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  http as viemHttp,
  parseAbi,
  parseEther,
  toHex,
  type Address,
  type Hex,
  type PublicClient,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount, privateKeyToAddress } from 'viem/accounts';
import { getEnsAddress, namehash, packetToBytes, toCoinType } from 'viem/ens';
import { bytesToHex, createClient, erc8441KeysOf, generateKeys, nameRegistrationMessage, scanRegistry, type Discovery, type RecipientKeys } from '@wraith-pq/sdk';
import { estimateGaslessWithdrawal, withdrawGasless, withdrawNative } from '@wraith-pq/sdk/evm';
import { requireCliBuild, runCli } from '../cli/run-cli.ts';
import { startGaslessChain, TOKEN_DECIMALS, type GaslessChain } from '../helpers/account-abstraction.ts';
import type { AnnouncerChain } from '../helpers/announcer-chain.ts';
import { deployGatewayEns, type GatewayEns } from '../helpers/ens-gateway-chain.ts';
import { freePort, http, spawnServer, startServer, temporaryDirectory, type RunningServer } from '../helpers/server.ts';

const PARENT = 'wraith.eth';
const SIGNING_KEY = generatePrivateKey();
const WINDOW_S = 2;
const MAX_UNPAID = 20;
/** Lookups of the flood test: 10,000 in the heavy run (WRAITH_HEAVY=1, about 5 minutes on 2 shared cores), 1,000 otherwise. */
const FLOOD = process.env.WRAITH_HEAVY === '1' ? 10_000 : 1_000;

let gasless: GaslessChain;
let chain: AnnouncerChain;
let token: Address;
/** 100 tokens of the test token (TUSD, 6 decimals). */
const HUNDRED = 100n * 10n ** BigInt(TOKEN_DECIMALS);
let ens: GatewayEns;
let server: RunningServer;
let port: number;
let viem: PublicClient;
const dir = temporaryDirectory('wraith-ens-gateway-');

function serverEnv(): Record<string, string> {
  return {
    REGISTRY_URL: `file:${dir.path}/registry.db`,
    CHAIN_RPC_URL: chain.rpcUrl,
    CHAIN_NAME: 'anvil',
    INDEXER_CONFIRMATIONS: '0',
    INDEXER_POLL_MS: '200',
    RATE_LIMIT_RPS: '0',
    TRUST_PROXY: '1',
    ETH_RPC_URL: chain.rpcUrl,
    ENS_REGISTRY: ens.registry,
    ENS_GATEWAY_RESOLVER: ens.resolver,
    ENS_GATEWAY_PARENT: PARENT,
    ENS_GATEWAY_SIGNING_KEY: SIGNING_KEY,
    ENS_GATEWAY_SECRET: 'test-only gateway secret, 32+ characters long',
    ENS_GATEWAY_SAME_REQUESTER_S: String(WINDOW_S),
    ENS_GATEWAY_MAX_UNPAID: String(MAX_UNPAID),
    ENS_GATEWAY_IP_HOURLY: '100000',
  };
}

beforeAll(async () => {
  gasless = await startGaslessChain();
  ({ chain, token } = gasless);
  await gasless.mint(chain.accounts[0]!.address, 10n * HUNDRED);
  port = await freePort();
  ens = await deployGatewayEns(chain.wallets[0]!, chain.publicClient, {
    url: `http://127.0.0.1:${port}/api/v1/ccip/{sender}/{data}.json`,
    signers: [privateKeyToAddress(SIGNING_KEY)],
    parent: PARENT,
  });
  viem = createPublicClient({ chain: ens.viemChain(chain.rpcUrl, chain.chainId), transport: viemHttp(chain.rpcUrl) }) as PublicClient;
  server = await startServer({ port, env: serverEnv() });
}, 180_000);
afterAll(async () => {
  await server?.stop();
  await gasless?.stop();
  dir.remove();
});

/** A revert reason as it appears, hex-encoded, in a nested revert's data. */
const reasonHex = (reason: string) => toHex(reason).slice(2);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Register `label.<parent>` for `meta`, signed by `signerKey` (default: the meta-address's spending key). */
async function register(name: string, meta: Uint8Array, signerKey: Hex, action: 'register' | 'change' = 'register', nonce?: number) {
  const current = nonce ?? (await http(server, `/api/v1/names/${name}`)).json.nonce;
  const message = nameRegistrationMessage({ action, name, metaAddress: meta, nonce: current, resolver: ens.resolver });
  const signature = await privateKeyToAccount(signerKey).signMessage({ message });
  return http(server, '/api/v1/names', { body: { action, name, meta_address: bytesToHex(meta), nonce: current, signature } });
}

async function release(name: string, signerKey: Hex) {
  const { nonce } = (await http(server, `/api/v1/names/${name}`)).json;
  const signature = await privateKeyToAccount(signerKey).signMessage({ message: nameRegistrationMessage({ action: 'release', name, nonce, resolver: ens.resolver }) });
  return http(server, '/api/v1/names', { body: { action: 'release', name, nonce, signature } });
}

const spendingKey = (keys: RecipientKeys): Hex => `0x${bytesToHex(keys.spendingSecretKey)}`;

/** The OffchainLookup callData the resolver raises for `addr(namehash(name))`. */
function lookupCallData(name: string): Hex {
  const inner = encodeFunctionData({ abi: parseAbi(['function addr(bytes32) view returns (address)']), args: [namehash(name)] });
  return encodeFunctionData({ abi: parseAbi(['function resolve(bytes, bytes) view returns (bytes, uint64, bytes)']), args: [toHex(packetToBytes(name)), inner] });
}

/** POST one lookup as the client at `ip`; the answered address. */
async function lookupAs(name: string, ip: string): Promise<string> {
  const answer = await http(server, '/api/v1/ccip', { body: { sender: ens.resolver, data: lookupCallData(name) }, headers: { 'x-forwarded-for': ip } });
  expect(answer.status).toBe(200);
  const [result] = decodeAbiParameters([{ type: 'bytes' }, { type: 'uint64' }, { type: 'bytes' }], answer.json.data);
  return getAddress(decodeAbiParameters([{ type: 'address' }], result)[0]);
}

async function discoveriesOf(keys: RecipientKeys): Promise<Discovery<any>[]> {
  const client = createClient({ baseUrl: server.url });
  const found: Discovery<any>[] = [];
  for await (const batch of scanRegistry(client.announcementPages, keys)) found.push(...batch.discoveries);
  return found;
}

const alice = generateKeys();
const bob = generateKeys();

describe('a name paid from any wallet through the ENS gateway', () => {
  it('registers labels only with the meta-address spending key, and changes and releases them only with the registered one', async () => {
    const aliceMeta = erc8441KeysOf(alice).metaAddress; // the ERC-8441 form: paid with scheme 3
    const stranger = generatePrivateKey();
    const wrong = await register(`alice.${PARENT}`, aliceMeta, stranger);
    expect(wrong.status).toBe(401);
    expect(wrong.json.error.code).toBe('BAD_NAME_SIGNATURE');
    expect((await register(`alice.${PARENT}`, aliceMeta, spendingKey(alice))).status).toBe(200);
    // Bob's Wraith form (scheme 1000); registered for someone else's key first, then changed by its holder.
    const temp = generateKeys();
    expect((await register(`bob.${PARENT}`, temp.metaAddress, spendingKey(temp))).status).toBe(200);
    const hijack = await register(`bob.${PARENT}`, bob.metaAddress, spendingKey(bob), 'change');
    expect(hijack.status, 'a change is signed by the key registered now').toBe(401);
    const replay = await register(`bob.${PARENT}`, bob.metaAddress, spendingKey(temp), 'change', 0);
    expect(replay.status, 'a signature over an old nonce is refused').toBe(409);
    const changed = await register(`bob.${PARENT}`, bob.metaAddress, spendingKey(temp), 'change');
    expect(changed.status).toBe(200);
    expect(changed.json).toMatchObject({ registered: true, kind: 'label', meta_address: bytesToHex(bob.metaAddress).replace(/^0x/, ''), nonce: 2 });
    const taken = await register(`bob.${PARENT}`, temp.metaAddress, spendingKey(temp));
    expect(taken.status).toBe(409);
    // Release needs the registered key too; afterwards the name answers no address.
    const eve = generateKeys();
    expect((await register(`eve.${PARENT}`, eve.metaAddress, spendingKey(eve))).status).toBe(200);
    expect((await release(`eve.${PARENT}`, stranger)).status).toBe(401);
    expect((await release(`eve.${PARENT}`, spendingKey(eve))).status).toBe(200);
    expect(await getEnsAddress(viem, { name: `eve.${PARENT}` })).toBeNull();
  });

  it('registers an own ENS name only with its owner\'s signature, once its resolver is the deployment\'s', { timeout: 60_000 }, async () => {
    const ownerKey = generatePrivateKey();
    const owner = privateKeyToAddress(ownerKey);
    const dave = generateKeys();
    await ens.register('dave.eth', owner, chain.accounts[0]!.address); // resolver not (yet) the gateway's
    const noResolver = await register('dave.eth', dave.metaAddress, ownerKey);
    expect(noResolver.status).toBe(422);
    expect(noResolver.json.error.code).toBe('RESOLVER_NOT_SET');
    await ens.register('dave.eth', owner);
    const bySpendingKey = await register('dave.eth', dave.metaAddress, spendingKey(dave));
    expect(bySpendingKey.status, 'an own name is proved by its ENS owner, not by the meta-address').toBe(401);
    const byOwner = await register('dave.eth', dave.metaAddress, ownerKey);
    expect(byOwner.status).toBe(200);
    expect(byOwner.json).toMatchObject({ kind: 'own', registered: true });
    expect(await getEnsAddress(viem, { name: 'dave.eth' })).toMatch(/^0x[0-9a-fA-F]{40}$/);
  });

  it('wraith name registers with the keystore\'s spending key after saying what the operator sees, and releases', { timeout: 120_000 }, async () => {
    requireCliBuild();
    const keystore = `${dir.path}/erin.json`;
    const env = { WRAITH_PASSWORD: 'correct horse battery staple', WRAITH_API_URL: server.url };
    expect((await runCli(['keys', 'new', '--out', keystore], { env })).code).toBe(0);
    const registered = await runCli(['name', 'register', `erin.${PARENT}`, '--keystore', keystore, '--yes', '--json'], { env });
    expect(registered.code, registered.stderr).toBe(0);
    expect(registered.stderr).toContain('operator will see every one-time address');
    expect(JSON.parse(registered.stdout)).toMatchObject({ name: `erin.${PARENT}`, registered: true, kind: 'label' });
    expect(await getEnsAddress(viem, { name: `erin.${PARENT}` })).toMatch(/^0x[0-9a-fA-F]{40}$/);
    const released = await runCli(['name', 'release', `erin.${PARENT}`, '--keystore', keystore, '--json'], { env });
    expect(released.code, released.stderr).toBe(0);
    expect(JSON.parse((await runCli(['name', 'show', `erin.${PARENT}`, '--json'], { env })).stdout)).toMatchObject({ registered: false, nonce: 2 });
    expect(await getEnsAddress(viem, { name: `erin.${PARENT}` })).toBeNull();
  });

  it('answers plain viem and ethers lookups with a different valid one-time address outside the same-requester window, and the same one inside it', { timeout: 60_000 }, async () => {
    const name = `alice.${PARENT}`;
    const first = await getEnsAddress(viem, { name });
    expect(first).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(await getEnsAddress(viem, { name }), 'a wallet resolving twice for one payment gets one address').toBe(first);
    await sleep(WINDOW_S * 1000 + 200);
    const second = await getEnsAddress(viem, { name });
    expect(second).not.toBe(first);
    await sleep(WINDOW_S * 1000 + 200);
    const provider = new JsonRpcProvider(chain.rpcUrl, Network.from({ chainId: chain.chainId, name: 'anvil', ensAddress: ens.registry } as never), { staticNetwork: true });
    const third = await provider.resolveName(name);
    provider.destroy();
    expect(third).not.toBeNull();
    expect(new Set([first, second, getAddress(third!)]).size).toBe(3);
    // Coin type 60 through addr(bytes32,uint256) answers too (lowercase, compared as addresses).
    const viaCoinType = await getEnsAddress(viem, { name, coinType: 60n });
    expect(viaCoinType).not.toBeNull();
  });

  it('answers "no address" for the coin type of a chain the server does not follow, and for ENSIP-19\'s "any EVM chain"', async () => {
    const name = `alice.${PARENT}`;
    expect(await getEnsAddress(viem, { name, coinType: toCoinType(chain.chainId) }), 'the followed chain').toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(await getEnsAddress(viem, { name, coinType: toCoinType(10) }), 'a chain nobody here watches').toBeNull();
    expect(await getEnsAddress(viem, { name, coinType: 0x80000000n })).toBeNull();
  });

  it('answers "no address" for a label nobody registered', async () => {
    expect(await getEnsAddress(viem, { name: `nobody.${PARENT}` })).toBeNull();
    expect(await lookupAs(`nobody.${PARENT}`, '10.0.0.1')).toBe('0x0000000000000000000000000000000000000000');
  });

  it('refuses a lookup for another resolver (wrong sender)', async () => {
    const answer = await http(server, '/api/v1/ccip', { body: { sender: privateKeyToAddress(generatePrivateKey()), data: lookupCallData(`alice.${PARENT}`) } });
    expect(answer.status).toBe(400);
    expect(answer.json.error.code).toBe('WRONG_SENDER');
    const viaGet = await fetch(`${server.url}/api/v1/ccip/${privateKeyToAddress(generatePrivateKey())}/${lookupCallData(`alice.${PARENT}`)}.json`);
    expect(viaGet.status).toBe(400);
    // Neither the signing key nor the secret, nor the names looked up, reach the log.
    const logged = server.log() + server.stderr();
    for (const secret of [SIGNING_KEY.slice(2), serverEnv().ENS_GATEWAY_SECRET!, 'alice.wraith.eth']) expect(logged).not.toContain(secret);
  });

  it('answers with Cache-Control: no-store over GET, as EIP-3668 clients call it', async () => {
    const answer = await fetch(`${server.url}/api/v1/ccip/${ens.resolver}/${lookupCallData(`alice.${PARENT}`)}.json`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toContain('no-store');
  });

  it('a wallet with no Wraith code pays two looked-up addresses; the server publishes both and the recipient\'s ordinary scan finds them; the coin is withdrawn to 0 wei', { timeout: 120_000 }, async () => {
    const before = (await http(server, '/api/v1/registry/stats')).json.total_announcements;
    await sleep(WINDOW_S * 1000 + 200);
    const coinAddress = (await getEnsAddress(viem, { name: `alice.${PARENT}` }))!;
    await sleep(WINDOW_S * 1000 + 200);
    const tokenAddress = (await getEnsAddress(viem, { name: `alice.${PARENT}` }))!;
    const bobAddress = (await getEnsAddress(viem, { name: `bob.${PARENT}` }))!;
    expect(new Set([coinAddress, tokenAddress, bobAddress]).size).toBe(3);

    const payer = chain.wallets[0]!;
    await chain.publicClient.waitForTransactionReceipt({ hash: await payer.sendTransaction({ to: coinAddress, value: parseEther('0.5') } as never) });
    await chain.publicClient.waitForTransactionReceipt({
      hash: await payer.writeContract({ address: token, abi: erc20Abi, functionName: 'transfer', args: [tokenAddress, HUNDRED] } as never),
    });
    await chain.publicClient.waitForTransactionReceipt({ hash: await payer.sendTransaction({ to: bobAddress, value: parseEther('0.25') } as never) });

    await expect.poll(async () => (await http(server, '/api/v1/registry/stats')).json.total_announcements, { timeout: 30_000, interval: 200 }).toBe(before + 3);

    const found = await discoveriesOf(alice);
    expect(found.map((d) => d.stealthAddress).sort()).toEqual([coinAddress, tokenAddress].sort());
    expect(found.every((d) => d.schemeId === 3)).toBe(true);
    const coin = found.find((d) => d.stealthAddress === coinAddress)!;
    expect(coin.note?.amount).toBe(parseEther('0.5'));
    expect(coin.note?.token).toBe('coin');
    // The note names the token (PROTOCOL.md 8.1), so the wallet reads "100 TUSD", not 100 of the coin.
    expect(found.find((d) => d.stealthAddress === tokenAddress)!.note?.amount).toBe(HUNDRED);
    expect(found.find((d) => d.stealthAddress === tokenAddress)!.note?.token).toBe(getAddress(token));
    expect(await chain.publicClient.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [tokenAddress] })).toBe(HUNDRED);
    // The coin as today; the tokens, which came with no coin for gas, through the gasless claim.
    const destination = privateKeyToAccount(generatePrivateKey()).address;
    const out = await withdrawNative({ client: chain.publicClient, stealthSecretKey: coin.stealthSecretKey!, to: destination });
    await chain.publicClient.waitForTransactionReceipt({ hash: out.hash });
    expect(await chain.publicClient.getBalance({ address: coinAddress as Address })).toBe(0n);
    expect(out.amount + out.fee).toBe(parseEther('0.5'));

    const tokenPayment = found.find((d) => d.stealthAddress === tokenAddress)!;
    const tokenDestination = privateKeyToAccount(generatePrivateKey()).address;
    const route = { client: chain.publicClient, token, to: tokenDestination, bundler: gasless.bundlerUrl, paymaster: gasless.paymaster };
    const quote = await estimateGaslessWithdrawal({ ...route, from: tokenAddress });
    const claimed = await withdrawGasless({ ...route, stealthSecretKey: tokenPayment.stealthSecretKey!, maxFee: quote.fee });
    expect(claimed.fee).toBeLessThanOrEqual(quote.fee);
    expect(await gasless.tokenBalance(tokenAddress as Address)).toBe(0n);
    expect(await chain.publicClient.getBalance({ address: tokenAddress as Address })).toBe(0n);
    expect(await gasless.tokenBalance(tokenDestination)).toBe(HUNDRED - claimed.fee);

    const bobFound = await discoveriesOf(bob);
    expect(bobFound.map((d) => [d.stealthAddress, d.schemeId])).toEqual([[bobAddress, 1000]]);
  });

  it(`${FLOOD.toLocaleString('en')} lookups of one name from a few addresses add no announcements and at most the capped number of small rows`, { timeout: 900_000 }, async () => {
    const name = `flood.${PARENT}`;
    const flood = generateKeys();
    // Registered through the SDK's client, as an app would.
    const account = privateKeyToAccount(spendingKey(flood));
    const registered = await createClient({ baseUrl: server.url }).registerName({ name, metaAddress: flood.metaAddress, sign: (message) => account.signMessage({ message }) });
    expect(registered).toMatchObject({ name, registered: true, kind: 'label', nonce: 1 });
    const before = (await http(server, '/api/v1/registry/stats')).json.total_announcements;
    const ips = ['192.0.2.1', '192.0.2.2', '192.0.2.3', '198.51.100.7', '203.0.113.9'];
    const seen = new Set<string>();
    let next = 0;
    const worker = async () => {
      while (next < FLOOD) {
        const i = next++;
        seen.add(await lookupAs(name, ips[i % ips.length]!));
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: 16 }, worker));
    console.info(`${FLOOD} gateway lookups: ${Math.round(performance.now() - started)} ms`);
    expect(seen.size).toBeGreaterThan(1);
    expect(seen.size).toBeLessThanOrEqual(MAX_UNPAID);
    expect((await http(server, '/api/v1/registry/stats')).json.total_announcements).toBe(before);
  });

  it('a restart in the middle issues no address twice, and a payment seen after it is still published', { timeout: 180_000 }, async () => {
    const name = `carol.${PARENT}`;
    const carol = generateKeys();
    expect((await register(name, carol.metaAddress, spendingKey(carol))).status).toBe(200);
    const beforeRestart = [await lookupAs(name, '10.1.0.1'), await lookupAs(name, '10.1.0.2'), await lookupAs(name, '10.1.0.3')];
    await server.stop('SIGKILL'); // a crash, not a clean shutdown
    // Paid while the server is down.
    await chain.publicClient.waitForTransactionReceipt({ hash: await chain.wallets[1]!.sendTransaction({ to: beforeRestart[1]!, value: parseEther('0.1') } as never) });
    server = await startServer({ port, env: serverEnv() });
    const afterRestart = [await lookupAs(name, '10.1.0.4'), await lookupAs(name, '10.1.0.5'), await lookupAs(name, '10.1.0.6')];
    expect(new Set([...beforeRestart, ...afterRestart]).size).toBe(6);
    await chain.publicClient.waitForTransactionReceipt({ hash: await chain.wallets[1]!.sendTransaction({ to: afterRestart[0]!, value: parseEther('0.2') } as never) });
    await expect.poll(async () => (await discoveriesOf(carol)).map((d) => d.stealthAddress).sort(), { timeout: 30_000, interval: 300 }).toEqual([beforeRestart[1], afterRestart[0]].sort());
  });

  it('refuses to start with a signing key its resolver does not trust, saying so in plain words without the key', { timeout: 120_000 }, async () => {
    const untrusted = generatePrivateKey();
    const { server: refused } = await spawnServer({ ...serverEnv(), ENS_GATEWAY_SIGNING_KEY: untrusted, REGISTRY_URL: 'memory:' }, await freePort());
    const exit = await refused.exited;
    expect(exit.code).toBe(1);
    expect(refused.stderr()).toContain(`ENS_GATEWAY_SIGNING_KEY: its address ${privateKeyToAddress(untrusted)} is not a signer of ENS_GATEWAY_RESOLVER on chain ${chain.chainId}`);
    expect(refused.stderr() + refused.log()).not.toContain(untrusted.slice(2));
  });

  it('a tampered or expired gateway answer is refused by the client', { timeout: 60_000 }, async () => {
    const name = `alice.${PARENT}`;
    let recorded: Hex | undefined;
    const via = (rewrite: (data: Hex) => Hex) =>
      createPublicClient({
        chain: ens.viemChain(chain.rpcUrl, chain.chainId),
        transport: viemHttp(chain.rpcUrl),
        ccipRead: {
          async request({ data, sender }) {
            const answer = (await http(server, '/api/v1/ccip', { body: { sender, data } })).json.data as Hex;
            recorded ??= answer;
            return rewrite(answer);
          },
        },
      });
    const honest = await getEnsAddress(via((data) => data), { name });
    expect(honest).not.toBeNull();
    // Another address in the signed result: the resolver's signature check fails.
    const tampered = (data: Hex): Hex => {
      const [result, expires, signature] = decodeAbiParameters([{ type: 'bytes' }, { type: 'uint64' }, { type: 'bytes' }], data);
      const other = encodeAbiParameters([{ type: 'address' }], [privateKeyToAddress(generatePrivateKey())]);
      expect(result).not.toBe(other);
      return encodeAbiParameters([{ type: 'bytes' }, { type: 'uint64' }, { type: 'bytes' }], [other, expires, signature]);
    };
    expect(await getEnsAddress(via(tampered), { name })).toBeNull();
    // strict: the resolver's own revert reason, inside the UniversalResolver's ResolverError.
    await expect(getEnsAddress(via(tampered), { name, strict: true })).rejects.toThrow(reasonHex('SignatureVerifier: Invalid sigature'));
    // The honest answer replayed after its expiry (ENS_GATEWAY_ANSWER_TTL_S, 60 s): refused.
    await chain.rpc('evm_increaseTime', [120]);
    await chain.mine(1);
    const replayed = recorded!;
    expect(await getEnsAddress(via(() => replayed), { name })).toBeNull();
    await expect(getEnsAddress(via(() => replayed), { name, strict: true })).rejects.toThrow(reasonHex('SignatureVerifier: Signature expired'));
  });
});
