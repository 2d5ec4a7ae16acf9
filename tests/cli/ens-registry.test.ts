/**
 * An ENS name's address, then its ERC-6538 registration, without any Wraith server: on anvil with
 * ENS (tests/helpers/ens-anvil.ts: registry, public resolver, Universal Resolver) and the canonical
 * registry's mainnet bytecode, `wraith resolve dave.eth --rpc` and `wraith pay dave.eth --rpc` read
 * the name's `addr` through the Universal Resolver, then the meta-address that address registered,
 * and pay it with scheme 3. A name whose address registered nothing is NOT_REGISTERED.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createWalletClient, http, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { waitForTransactionReceipt } from 'viem/actions';
import { foundry } from 'viem/chains';
import { namehash } from 'viem/ens';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metaAddressFingerprint } from '@wraith-pq/sdk';
import { ERC6538_REGISTRY_ADDRESS } from '@wraith-pq/sdk/evm';
import { DEV_KEYS } from '../helpers/announcer-chain.ts';
import { compileEnsContracts, startEnsChain, type EnsChain } from '../helpers/ens-anvil.ts';
import { temporaryDirectory } from '../helpers/server.ts';
import { jsonLines, recordingCli, requireCliBuild } from './run-cli.ts';

const PASSWORD = 'ens-registry-test-password';
const DAVE_KEY = DEV_KEYS[1]!;
const DAVE = privateKeyToAccount(DAVE_KEY).address;
const EMPTY = privateKeyToAccount(DEV_KEYS[2]!).address;
const dir = temporaryDirectory('wraith-cli-ens-registry-');
const { cli } = recordingCli(dir.path, { WRAITH_PASSWORD: PASSWORD });
let ens: EnsChain;

beforeAll(async () => {
  requireCliBuild();
  ens = await startEnsChain();
  const code = readFileSync(new URL('../fixtures/erc6538/registry.runtime.hex', import.meta.url), 'utf8').trim() as Hex;
  const owner = createWalletClient({ account: privateKeyToAccount(DEV_KEYS[0]!), chain: foundry, transport: http(ens.rpcUrl) });
  await owner.request({ method: 'anvil_setCode' as never, params: [ERC6538_REGISTRY_ADDRESS, code] as never });
  // dave.eth points at Dave's address; nobody.eth at an address that registered nothing.
  for (const [name, address] of [['dave.eth', DAVE], ['nobody.eth', EMPTY]] as const) {
    await ens.register(name);
    const hash = await owner.writeContract({ address: ens.publicResolver, abi: compileEnsContracts().PublicResolver!.abi, functionName: 'setAddr', args: [namehash(name), address] });
    expect((await waitForTransactionReceipt(owner, { hash })).status).toBe('success');
  }
  expect((await cli(['keys', 'new', '--out', 'dave.json'])).code).toBe(0);
  const registered = await cli(['register', '--keystore', 'dave.json', '--rpc', ens.rpcUrl, '--yes'], { WRAITH_PRIVATE_KEY: DAVE_KEY });
  expect(registered.code, registered.stderr).toBe(0);
}, 120_000);
afterAll(async () => {
  await ens?.stop();
  dir.remove();
});

describe('a .eth name resolved through the RPC, then the ERC-6538 registry', () => {
  it('resolve and pay find the meta-address registered by the name\'s address, and pay it with scheme 3', async () => {
    const erc8441 = (await cli(['keys', 'show', '--keystore', join(dir.path, 'dave.json'), '--scheme', '3'])).stdout.trim();
    const ensFlags = ['--rpc', ens.rpcUrl, '--ens-resolver', ens.universalResolver];
    const resolved = await cli(['resolve', 'dave.eth', ...ensFlags, '--json']);
    expect(resolved.code, resolved.stderr).toBe(0);
    expect(jsonLines(resolved.stdout)[0]).toMatchObject({ name: 'dave.eth', registrant: DAVE, scheme_id: 3, meta_address: erc8441 });

    const paid = await cli(['pay', 'dave.eth', ...ensFlags, '--amount', '1000wei']);
    expect(paid.code, paid.stderr).toBe(0);
    expect(paid.stdout).toContain(`recipient: dave.eth, from ENS dave.eth (${DAVE}), its ERC-6538 registration\nfingerprint: ${metaAddressFingerprint(erc8441)}\n`);
    expect(paid.stdout).toContain(`scheme: scheme 3 (ERC-8441, hybrid ML-KEM + ECDH), for the recipient's 1250-byte meta-address\n`);
    // A name's lookup vouches for the meta-address: no fingerprint to confirm, and the payment is kept before its address is printed.
    expect(paid.stdout).toMatch(/^payment kept in wraith-payment-0x[0-9a-fA-F]{40}\.json$/m);
    expect(paid.stdout).toMatch(/^stealth address \(EVM\): 0x[0-9a-fA-F]{40}$/m);

    const nobody = await cli(['pay', 'nobody.eth', ...ensFlags, '--amount', '1000wei']);
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toMatch(new RegExp(`^wraith: NOT_REGISTERED: nobody\\.eth \\(${EMPTY}\\) has no meta-address in the ERC-6538 registry`));
    // Without --ens-resolver on a chain other than mainnet, the CLI says where ENS is missing.
    const noResolver = await cli(['resolve', 'dave.eth', '--rpc', ens.rpcUrl]);
    expect(noResolver.stderr).toMatch(/^wraith: ENS_UNAVAILABLE: chain 31337 has no known ENS Universal Resolver/);
  }, 120_000);
});
