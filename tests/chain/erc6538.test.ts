/**
 * ERC-6538 registration against the canonical registry's runtime bytecode on anvil
 * (tests/fixtures/erc6538/SOURCE.md): a recipient registers its ERC-8441 meta-address directly
 * and by a signature someone else submits; senders read it back, prefer scheme 3, and treat a
 * cleared scheme as unregistered.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, http, parseEther, type Hex, type PublicClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { bytesToHex, erc8441KeysOf, generateKeys, InvalidArgumentError, InvalidMetaAddressError } from '@wraith-pq/sdk';
import {
  ERC6538_REGISTRY_ADDRESS,
  erc6538Abi,
  estimateRegistration,
  registerKeysOnBehalfParameters,
  registerKeysParameters,
  resolveRegisteredMetaAddress,
  signRegistration,
  stealthMetaAddressOf,
} from '@wraith-pq/sdk/evm';
import { startAnvil, type Anvil } from '../helpers/anvil.ts';
import { DEV_KEYS } from '../helpers/announcer-chain.ts';

const PINNED_SHA256 = 'aacd1016938b107361de63f20c358350de9f78fa6033b7727853f0229c94b82f';

let anvil: Anvil;
let client: PublicClient;
beforeAll(async () => {
  const code = readFileSync(new URL('../fixtures/erc6538/registry.runtime.hex', import.meta.url), 'utf8').trim() as Hex;
  const digest = Buffer.from(await crypto.subtle.digest('SHA-256', Buffer.from(code.slice(2), 'hex'))).toString('hex');
  expect(digest, 'the registry bytecode is the one read from mainnet').toBe(PINNED_SHA256);
  anvil = await startAnvil();
  client = createPublicClient({ chain: foundry, transport: http(anvil.rpcUrl) }) as PublicClient;
  await client.request({ method: 'anvil_setCode' as never, params: [ERC6538_REGISTRY_ADDRESS, code] as never });
});
afterAll(() => anvil?.stop());

/** A fresh registrant with some ETH: each first registration starts from empty storage. */
async function freshWallet(funded = true) {
  const account = privateKeyToAccount(generatePrivateKey());
  if (funded) await client.request({ method: 'anvil_setBalance' as never, params: [account.address, `0x${parseEther('10').toString(16)}`] as never });
  return createWalletClient({ account, chain: foundry, transport: http(anvil.rpcUrl) });
}

async function mined(hash: Hex) {
  const receipt = await client.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe('success');
  return receipt;
}

describe('ERC-6538 registration on the canonical registry', () => {
  const identity = generateKeys();
  const scheme3 = erc8441KeysOf(identity);

  it('registers the 1250-byte meta-address under scheme 3 from the wallet, at the price estimated first (about 0.96 M gas)', async () => {
    const wallet = await freshWallet();
    const estimate = await estimateRegistration({ client, from: wallet.account.address, metaAddress: scheme3.metaAddress });
    expect(estimate.schemeId).toBe(3);
    expect(estimate.gas).toBeGreaterThan(900_000n);
    expect(estimate.gas).toBeLessThan(1_050_000n);
    const call = registerKeysParameters({ metaAddress: scheme3.metaAddress });
    const receipt = await mined(await wallet.sendTransaction({ to: call.address, data: call.data }));
    expect(receipt.gasUsed).toBeLessThanOrEqual(estimate.gas);
    console.log(`ERC-6538 first registration of 1250 bytes: ${receipt.gasUsed} gas (estimated ${estimate.gas})`);
    expect(receipt.gasUsed * receipt.effectiveGasPrice).toBeLessThanOrEqual(estimate.maxFee);
    const stored = await stealthMetaAddressOf({ client, registrant: wallet.account.address.toLowerCase(), schemeId: 3 });
    expect(bytesToHex(stored!)).toBe(bytesToHex(scheme3.metaAddress));
    expect(await resolveRegisteredMetaAddress({ client, registrant: wallet.account.address })).toMatchObject({ status: 'registered', schemeId: 3 });
  });

  it('registers on behalf: the registrant signs (no gas, no ETH), a relayer submits; the signature is spent once', async () => {
    const registrant = await freshWallet(false);
    const relayer = createWalletClient({ account: privateKeyToAccount(DEV_KEYS[1]!), chain: foundry, transport: http(anvil.rpcUrl) });
    const { signature, nonce } = await signRegistration({ wallet: registrant, client, metaAddress: scheme3.metaAddress });
    expect(nonce).toBe(0n);
    const call = registerKeysOnBehalfParameters({ registrant: registrant.account.address, signature, metaAddress: scheme3.metaAddress });
    await mined(await relayer.sendTransaction({ to: call.address, data: call.data }));
    expect(await client.getBalance({ address: registrant.account.address })).toBe(0n);
    expect(bytesToHex((await stealthMetaAddressOf({ client, registrant: registrant.account.address, schemeId: 3 }))!)).toBe(bytesToHex(scheme3.metaAddress));
    expect(await client.readContract({ address: ERC6538_REGISTRY_ADDRESS, abi: erc6538Abi, functionName: 'nonceOf', args: [registrant.account.address] })).toBe(1n);
    // The same signature again (replay) and a signature by someone else are refused by the registry.
    await expect(relayer.sendTransaction({ to: call.address, data: call.data })).rejects.toThrow();
    const other = await freshWallet(false);
    const forged = registerKeysOnBehalfParameters({ registrant: other.account.address, signature, metaAddress: scheme3.metaAddress });
    await expect(relayer.sendTransaction({ to: forged.address, data: forged.data })).rejects.toThrow();
    expect(await stealthMetaAddressOf({ client, registrant: other.account.address, schemeId: 3 })).toBeNull();
  });

  it('prefers scheme 3 when both are registered, and treats a cleared scheme (empty value) as unregistered', async () => {
    const wallet = await freshWallet();
    for (const metaAddress of [identity.metaAddress, scheme3.metaAddress]) {
      const call = registerKeysParameters({ metaAddress });
      await mined(await wallet.sendTransaction({ to: call.address, data: call.data }));
    }
    expect(await resolveRegisteredMetaAddress({ client, registrant: wallet.account.address })).toMatchObject({ status: 'registered', schemeId: 3 });
    const clear = registerKeysParameters({ metaAddress: null, schemeId: 3 });
    await mined(await wallet.sendTransaction({ to: clear.address, data: clear.data }));
    expect(await stealthMetaAddressOf({ client, registrant: wallet.account.address, schemeId: 3 })).toBeNull();
    const fallback = await resolveRegisteredMetaAddress({ client, registrant: wallet.account.address });
    expect(fallback).toMatchObject({ status: 'registered', schemeId: 1000 });
    const clearAll = registerKeysParameters({ metaAddress: null, schemeId: 1000 });
    await mined(await wallet.sendTransaction({ to: clearAll.address, data: clearAll.data }));
    expect(await resolveRegisteredMetaAddress({ client, registrant: wallet.account.address })).toEqual({ status: 'unregistered' });
  });

  it('reports junk someone registered as invalid instead of paying it, and refuses to build a bad registration', async () => {
    const wallet = await freshWallet();
    // The registry takes any bytes: register a 1250-byte value whose viewing point is not on the curve.
    const junk = scheme3.metaAddress.slice();
    junk.set([0x02, ...new Uint8Array(31), 0x05], 33);
    const data = registerKeysParameters({ metaAddress: scheme3.metaAddress }).data.replace(bytesToHex(scheme3.metaAddress), bytesToHex(junk)) as Hex;
    await mined(await wallet.sendTransaction({ to: ERC6538_REGISTRY_ADDRESS, data }));
    expect(await resolveRegisteredMetaAddress({ client, registrant: wallet.account.address })).toMatchObject({ status: 'invalid', schemeId: 3 });
    expect(() => registerKeysParameters({ metaAddress: junk })).toThrow(InvalidMetaAddressError);
    expect(() => registerKeysParameters({ metaAddress: scheme3.metaAddress, schemeId: 1000 })).toThrow(InvalidArgumentError);
    expect(() => registerKeysParameters({ metaAddress: null })).toThrow(InvalidArgumentError);
  });
});
