/**
 * `@wraith-pq/sdk/sui` moving a discovery's SUI: the one-time key `p` as a Sui signer whose
 * address is the discovery's, the balance it holds, and a sweep leaving 0 at the stealth
 * address. No Sui node runs here: `SuiJsonRpcClient` talks to an msw full node
 * (tests/helpers/msw-sui-node.ts) that keeps a ledger, verifies each submitted signature with
 * @mysten/sui's verify helpers and charges gas like mainnet. Discoveries come from real payments
 * found by the SDK's scanner.
 */
import { SuiJsonRpcClient } from '@mysten/sui/jsonRpc';
import { Secp256k1PublicKey } from '@mysten/sui/keypairs/secp256k1';
import { fromBase64 } from '@mysten/sui/utils';
import { blake2b } from '@noble/hashes/blake2.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex, createStealthPayment, generateKeys, scanAnnouncements, suiAddressOf, WraithError, type RecipientKeys } from '@wraith-pq/sdk';
import { SuiInsufficientGasError, SuiTransactionFailedError, suiStealthBalance, suiStealthKeypair, withdrawSui } from '@wraith-pq/sdk/sui';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSuiNodeMock, SUI_NODE_URL } from '../helpers/msw-sui-node.ts';

const node = createSuiNodeMock();
const server = setupServer(...node.handlers);
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
beforeEach(() => node.reset());
afterAll(() => server.close());

const client = new SuiJsonRpcClient({ url: SUI_NODE_URL, network: 'mainnet' });
const SUI = 1_000_000_000n; // MIST
/** A fresh destination (any valid address; its owner's key is not needed to receive). */
const destination = () => `0x${bytesToHex(secp256k1.utils.randomSecretKey())}`;

let keys: RecipientKeys;
beforeAll(() => {
  keys = generateKeys();
});

/** Pay the recipient, then find the payment with the scanner, as a wallet would. */
function discover() {
  const payment = createStealthPayment(keys.metaAddress);
  const { discoveries } = scanAnnouncements(keys, [{ id: 1, ephemeral_key: bytesToHex(payment.ephemeralCiphertext), view_tag: payment.viewTag }]);
  expect(discoveries).toHaveLength(1);
  const discovery = discoveries[0]!;
  return { ...discovery, stealthSecretKey: discovery.stealthSecretKey! };
}

/** Everything the sweep costs on this node for `coins` coin objects: computation + storage - rebate. */
function sweepFee(coins: number): bigint {
  return 1_000n * node.referenceGasPrice + 988_000n - 978_120n * BigInt(coins);
}

describe('suiStealthKeypair', () => {
  it("signs for the discovery's own Sui address: BLAKE2b(0x01 || P) of the one-time key", () => {
    for (let i = 0; i < 5; i++) {
      const discovery = discover();
      const keypair = suiStealthKeypair(discovery.stealthSecretKey);
      expect(keypair.toSuiAddress()).toBe(discovery.stealthSuiAddress);
      expect(keypair.getPublicKey().toRawBytes()).toEqual(discovery.stealthPublicKey);
      // @mysten/sui's own address of the SDK's one-time public key agrees.
      expect(new Secp256k1PublicKey(discovery.stealthPublicKey).toSuiAddress()).toBe(discovery.stealthSuiAddress);
      expect(suiAddressOf(secp256k1.Point.fromBytes(discovery.stealthPublicKey))).toBe(discovery.stealthSuiAddress);
      // The same key as hex.
      expect(suiStealthKeypair(`0x${bytesToHex(discovery.stealthSecretKey)}`).toSuiAddress()).toBe(discovery.stealthSuiAddress);
    }
  });

  it('refuses keys that are not a one-time key, without echoing them', () => {
    const valid = bytesToHex(discover().stealthSecretKey);
    const order = secp256k1.Point.Fn.ORDER.toString(16).padStart(64, '0');
    for (const bad of [new Uint8Array(32), new Uint8Array(31).fill(1), `0x${valid.slice(2)}`, valid, `0x${order}`, 42 as unknown as string]) {
      let caught: unknown;
      try {
        suiStealthKeypair(bad);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(WraithError);
      expect(caught).toMatchObject({ code: 'INVALID_ARGUMENT', details: [{ path: 'stealthSecretKey' }] });
      expect((caught as Error).message).not.toContain(valid.slice(2, 20));
    }
  });
});

describe('suiStealthBalance', () => {
  it('counts coin objects and the address balance', async () => {
    const { stealthSuiAddress } = discover();
    node.mintCoin(stealthSuiAddress, 2n * SUI);
    node.mintCoin(stealthSuiAddress, 250_000_000n);
    node.depositAddressBalance(stealthSuiAddress, 40_000_000n);
    expect(await suiStealthBalance({ client, address: stealthSuiAddress.toUpperCase().replace('0X', '0x') })).toEqual({
      address: stealthSuiAddress,
      total: 2_290_000_000n,
      coinBalance: 2_250_000_000n,
      addressBalance: 40_000_000n,
      coinObjectCount: 2,
    });
    expect(node.calls).toEqual(['suix_getBalance']);
  });

  it('reads 0 for an address nothing was sent to', async () => {
    const { stealthSuiAddress } = discover();
    expect(await suiStealthBalance({ client, address: stealthSuiAddress })).toMatchObject({ total: 0n, coinObjectCount: 0 });
  });

  it('refuses a malformed address before asking the node', async () => {
    for (const address of ['0x2', 'f'.repeat(64), `0x${'g'.repeat(64)}`, undefined as unknown as string]) {
      await expect(suiStealthBalance({ client, address })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: [{ path: 'address' }] });
    }
    expect(node.calls).toEqual([]);
  });
});

describe('withdrawSui', () => {
  it('sweeps every coin and the address balance to the destination, leaving 0, signed by the one-time key', async () => {
    const discovery = discover();
    const to = destination();
    node.mintCoin(discovery.stealthSuiAddress, 3n * SUI);
    node.mintCoin(discovery.stealthSuiAddress, 120_000_000n);
    node.mintCoin(discovery.stealthSuiAddress, 7_000n);
    node.depositAddressBalance(discovery.stealthSuiAddress, 55_000_000n);
    const before = node.totalOf(discovery.stealthSuiAddress);

    const result = await withdrawSui({ client, stealthSecretKey: discovery.stealthSecretKey, to });

    const fee = sweepFee(3);
    expect(result).toEqual({ digest: expect.any(String), status: 'success', amount: before - fee, fee, remaining: 0n });
    expect(node.totalOf(discovery.stealthSuiAddress)).toBe(0n);
    expect(node.coinsOf(discovery.stealthSuiAddress)).toEqual([]);
    expect(node.totalOf(to)).toBe(before - fee);
    expect(node.coinsOf(to)).toHaveLength(1);

    // What the node received: one transaction, signed by the stealth key, moving the gas coin (and only it) to `to`.
    expect(node.calls.filter((method) => method === 'sui_executeTransactionBlock')).toHaveLength(1);
    expect(node.submitted).toHaveLength(1);
    const submitted = node.submitted[0]!;
    expect(submitted.digest).toBe(result.digest);
    expect(submitted.sender).toBe(discovery.stealthSuiAddress);
    expect(submitted.signer).toBe(discovery.stealthSuiAddress);
    expect(submitted.signatureScheme).toBe('Secp256k1');
    expect(submitted.signerPublicKey).toEqual(discovery.stealthPublicKey);
    expect(submitted.commands).toEqual([{ $kind: 'TransferObjects', TransferObjects: { objects: [{ $kind: 'GasCoin', GasCoin: true }], address: { $kind: 'Input', Input: 0 } } }]);
    expect(submitted.recipient).toBe(to);
    // Three coins and the reservation of the address balance pay the gas: all of it is in the gas coin.
    expect(submitted.gas.payment).toHaveLength(4);
    expect(submitted.gas.price).toBe(node.referenceGasPrice);

    // The signature checked once more without @mysten/sui: flag 0x01 || 64-byte (r, s) || 33-byte key, over
    // SHA-256(BLAKE2b-256(intent [0, 0, 0] || TransactionData)), by the one-time public key P.
    const serialized = fromBase64(submitted.signature);
    expect(serialized[0]).toBe(0x01);
    expect(serialized.subarray(65)).toEqual(discovery.stealthPublicKey);
    const intentMessage = new Uint8Array([0, 0, 0, ...submitted.bytes]);
    expect(secp256k1.verify(serialized.subarray(1, 65), blake2b(intentMessage, { dkLen: 32 }), discovery.stealthPublicKey)).toBe(true);
    const tampered = submitted.bytes.slice();
    tampered[tampered.length - 1]! ^= 1;
    expect(secp256k1.verify(serialized.subarray(1, 65), blake2b(new Uint8Array([0, 0, 0, ...tampered]), { dkLen: 32 }), discovery.stealthPublicKey)).toBe(false);
  });

  it('sweeps an address balance alone (SUI deposited with send_funds, no coin object)', async () => {
    const discovery = discover();
    const to = destination();
    node.depositAddressBalance(discovery.stealthSuiAddress, SUI);
    const result = await withdrawSui({ client, stealthSecretKey: discovery.stealthSecretKey, to });
    expect(result).toMatchObject({ status: 'success', amount: SUI - sweepFee(1), remaining: 0n });
    expect(node.totalOf(discovery.stealthSuiAddress)).toBe(0n);
    expect(node.totalOf(to)).toBe(SUI - sweepFee(1));
  });

  it('says what is left when the address holds more coins than one gas payment takes, and a second sweep takes it', async () => {
    const discovery = discover();
    const to = destination();
    for (let i = 0; i < 60; i++) node.mintCoin(discovery.stealthSuiAddress, 10_000_000n);
    const first = await withdrawSui({ client, stealthSecretKey: discovery.stealthSecretKey, to });
    // The resolver takes the node's first page of coins (50).
    expect(first).toMatchObject({ amount: 500_000_000n - sweepFee(50), remaining: 100_000_000n });
    expect(node.totalOf(discovery.stealthSuiAddress)).toBe(100_000_000n);
    const second = await withdrawSui({ client, stealthSecretKey: discovery.stealthSecretKey, to });
    expect(second).toMatchObject({ amount: 100_000_000n - sweepFee(10), remaining: 0n });
    expect(node.totalOf(discovery.stealthSuiAddress)).toBe(0n);
    expect(node.totalOf(to)).toBe(600_000_000n - sweepFee(50) - sweepFee(10));
  });

  it('sends nothing from an empty address: SuiInsufficientGasError', async () => {
    const discovery = discover();
    const error = await withdrawSui({ client, stealthSecretKey: discovery.stealthSecretKey, to: destination() }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SuiInsufficientGasError);
    expect(error).toMatchObject({ code: 'INSUFFICIENT_GAS', address: discovery.stealthSuiAddress, required: null, available: 0n });
    expect(node.calls).toEqual(['suix_getBalance']);
    expect(node.submitted).toEqual([]);
  });

  it('sends nothing when the balance is below the gas budget, and says how much the budget is', async () => {
    const discovery = discover();
    node.mintCoin(discovery.stealthSuiAddress, 1_000_000n);
    const error = await withdrawSui({ client, stealthSecretKey: discovery.stealthSecretKey, to: destination() }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SuiInsufficientGasError);
    // The resolver's budget: the dry run's computation + 1,000 units of headroom at the gas price + storage - rebate.
    const budget = 2n * 1_000n * node.referenceGasPrice + 988_000n - 978_120n;
    expect(error).toMatchObject({ code: 'INSUFFICIENT_GAS', required: budget, available: 1_000_000n });
    expect((error as Error).message).toContain('Nothing was sent');
    expect(node.calls).not.toContain('sui_executeTransactionBlock');
    expect(node.totalOf(discovery.stealthSuiAddress)).toBe(1_000_000n);
  });

  it('throws SuiTransactionFailedError with the digest when the effects report failure; the funds stay, less the gas', async () => {
    const discovery = discover();
    node.mintCoin(discovery.stealthSuiAddress, SUI);
    node.failNextExecution('InsufficientCoinBalance in command 0');
    const error = await withdrawSui({ client, stealthSecretKey: discovery.stealthSecretKey, to: destination() }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SuiTransactionFailedError);
    expect(error).toMatchObject({ code: 'SUI_TRANSACTION_FAILED', digest: node.submitted[0]!.digest, reason: 'InsufficientCoinBalance in command 0' });
    expect(node.totalOf(discovery.stealthSuiAddress)).toBe(SUI - sweepFee(1));
  });

  it('refuses a bad destination with a typed error before asking the node', async () => {
    const discovery = discover();
    node.mintCoin(discovery.stealthSuiAddress, SUI);
    const bad = ['0x2', `0x${'a'.repeat(63)}`, `0x${'a'.repeat(65)}`, 'a'.repeat(64), `0x${'z'.repeat(64)}`, '', 7 as unknown as string, discovery.stealthSuiAddress];
    for (const to of bad) {
      const error = await withdrawSui({ client, stealthSecretKey: discovery.stealthSecretKey, to }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(WraithError);
      expect(error).toMatchObject({ name: 'InvalidArgumentError', code: 'INVALID_ARGUMENT', details: [{ path: 'to' }] });
    }
    await expect(withdrawSui({ client, stealthSecretKey: new Uint8Array(32), to: destination() })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: [{ path: 'stealthSecretKey' }] });
    await expect(withdrawSui(undefined as never)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(node.calls).toEqual([]);
    expect(node.totalOf(discovery.stealthSuiAddress)).toBe(SUI);
  });

  it('a destination in upper case receives the same as in lower case', async () => {
    const discovery = discover();
    const to = destination();
    node.mintCoin(discovery.stealthSuiAddress, SUI);
    await withdrawSui({ client, stealthSecretKey: discovery.stealthSecretKey, to: `0x${to.slice(2).toUpperCase()}` });
    expect(node.totalOf(to)).toBe(SUI - sweepFee(1));
  });
});
