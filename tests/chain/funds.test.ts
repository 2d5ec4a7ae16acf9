/**
 * Issue 18, SDK part: money through stealth addresses on anvil, with the Announcer at its
 * canonical address and a solc-compiled ERC-20 (tests/fixtures/erc20/TestToken.sol). A dev account
 * pays from its wallet (payStealth), the recipient finds the payments by scanning the chain,
 * reads their balances (stealthBalances) and withdraws them signed with the one-time key alone
 * (withdrawToken, withdrawNative); every figure is checked on the chain.
 */
import { createPublicClient, createWalletClient, erc20Abi, getAddress, http, parseEther, type Address, type Hash, type Hex } from 'viem';
import { foundry } from 'viem/chains';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStealthPayment, generateKeys, InvalidArgumentError, scanRegistry, type Discovery, type RecipientKeys } from '@wraith-pq/sdk';
import {
  announceParameters,
  chainAnnouncementPages,
  InsufficientGasError,
  PaymentNotAnnouncedError,
  estimateGasTopUp,
  estimatePayment,
  estimateWithdrawal,
  payStealth,
  stealthBalances,
  withdrawNative,
  withdrawToken,
  type ChainAnnouncement,
} from '@wraith-pq/sdk/evm';
import { startAnnouncerChain, type AnnouncerChain } from '../helpers/announcer-chain.ts';
import { compileContracts } from '../helpers/anvil.ts';
import { startRpcFaultProxy } from '../helpers/rpc-fault-proxy.ts';

let chain: AnnouncerChain;
let token: Address;
let recipient: RecipientKeys;

beforeAll(async () => {
  chain = await startAnnouncerChain();
  recipient = generateKeys();
  const { abi, bytecode } = compileContracts(new URL('../fixtures/erc20/', import.meta.url))['TestToken']!;
  const hash = await chain.wallets[0]!.deployContract({ abi, bytecode, args: ['Test Token', 'TST', 18, 10n ** 24n] } as never);
  token = getAddress((await chain.publicClient.waitForTransactionReceipt({ hash })).contractAddress!);
}, 120_000);
afterAll(async () => {
  await chain?.stop();
});

/** The recipient's discoveries, scanned straight from the chain. */
async function discover(): Promise<Discovery<ChainAnnouncement>[]> {
  const found: Discovery<ChainAnnouncement>[] = [];
  for await (const batch of scanRegistry(chainAnnouncementPages({ client: chain.publicClient }), recipient)) found.push(...batch.discoveries);
  return found;
}

const balanceOf = (address: Address) => chain.publicClient.getBalance({ address });
const tokensOf = (address: Address) => chain.publicClient.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [address] });
const freshAddress = (): Address => privateKeyToAccount(generatePrivateKey()).address;

/** What a mined transaction cost its sender. */
async function feeOf(hash: Hash): Promise<bigint> {
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe('success');
  return receipt.gasUsed * receipt.effectiveGasPrice;
}

describe('pay, see, withdraw on anvil', () => {
  it('pays 0.5 ETH and 100 tokens with a gas top-up; the recipient scans, sees both, withdraws both to 0 wei and 0 tokens', { timeout: 120_000 }, async () => {
    const wallet = chain.wallets[0]!;
    const ethPayment = createStealthPayment(recipient.metaAddress);
    const tokenPayment = createStealthPayment(recipient.metaAddress);
    const paidEth = await payStealth({ wallet, client: chain.publicClient, payment: ethPayment, asset: { type: 'native', value: parseEther('0.5') } });
    const paidTokens = await payStealth({
      wallet,
      client: chain.publicClient,
      payment: tokenPayment,
      asset: { type: 'erc20', token, amount: 100n * 10n ** 18n, gasTopUp: parseEther('0.01') },
    });
    expect(paidEth.topUpHash).toBeNull();
    expect(paidTokens.topUpHash).toMatch(/^0x[0-9a-f]{64}$/);

    // The recipient finds both, with the notes the sender sealed (amount, asset, transfer hash, chain id: PROTOCOL.md 8.1).
    const found = await discover();
    const eth = found.find((d) => d.stealthAddress === ethPayment.stealthAddress)!;
    const tokens = found.find((d) => d.stealthAddress === tokenPayment.stealthAddress)!;
    expect(eth.noteStatus).toBe('opened');
    expect(eth.note).toEqual({ amount: parseEther('0.5'), token: 'coin', txHash: paidEth.paymentHash, chainId: 31337n });
    expect(tokens.note).toEqual({ amount: 100n * 10n ** 18n, token, txHash: paidTokens.paymentHash, chainId: 31337n });

    const [ethBalance, tokenBalance] = await stealthBalances({ client: chain.publicClient, addresses: [eth.stealthAddress, tokens.stealthAddress], tokens: [token] });
    expect(ethBalance).toEqual({ address: eth.stealthAddress, native: parseEther('0.5'), tokens: [{ token, balance: 0n }] });
    expect(tokenBalance).toEqual({ address: tokens.stealthAddress, native: parseEther('0.01'), tokens: [{ token, balance: 100n * 10n ** 18n }] });

    // Withdraw everything to a fresh address: tokens first (gas from the top-up), then each native balance.
    const destination = freshAddress();
    // The estimate shown before signing, without the key, is what the withdrawal then sends.
    const tokenEstimate = await estimateWithdrawal({ client: chain.publicClient, from: tokens.stealthAddress, to: destination, token });
    expect(tokenEstimate.amount).toBe(100n * 10n ** 18n);
    const tokenOut = await withdrawToken({ client: chain.publicClient, stealthSecretKey: tokens.stealthSecretKey!, token, to: destination });
    const tokenFee = await feeOf(tokenOut.hash);
    expect(tokenFee).toBeLessThanOrEqual(tokenOut.fee);
    const topUpOut = await withdrawNative({ client: chain.publicClient, stealthSecretKey: tokens.stealthSecretKey!, to: destination });
    const topUpFee = await feeOf(topUpOut.hash);
    // Each block moves the base fee: an estimate holds for the block it was made in.
    const ethEstimate = await estimateWithdrawal({ client: chain.publicClient, from: eth.stealthAddress, to: destination });
    expect(ethEstimate.amount + ethEstimate.fee).toBe(parseEther('0.5'));
    // anvil is a standard chain: 21,000 gas at a price that is the cap, so the fee is exact and nothing stays.
    expect(ethEstimate).toMatchObject({ feeModel: 'standard', feeKind: 'exact', l1Fee: 0n, maxRemainder: 0n, gas: 21_000n });
    expect(tokenEstimate).toMatchObject({ feeModel: 'standard', feeKind: 'maximum', l1Fee: 0n, maxRemainder: 0n });
    const ethOut = await withdrawNative({ client: chain.publicClient, stealthSecretKey: bytesHex(eth.stealthSecretKey!), to: destination });
    const ethFee = await feeOf(ethOut.hash);
    expect(tokenOut).toMatchObject({ ...tokenEstimate, pricedAt: 'signing' });
    expect(ethOut).toMatchObject({ ...ethEstimate, pricedAt: 'signing' });
    // A native sweep's fee is exactly what it announced.
    expect(ethFee).toBe(ethOut.fee);
    expect(topUpFee).toBe(topUpOut.fee);

    expect(await balanceOf(eth.stealthAddress as Address)).toBe(0n);
    expect(await balanceOf(tokens.stealthAddress as Address)).toBe(0n);
    expect(await tokensOf(tokens.stealthAddress as Address)).toBe(0n);
    expect(await tokensOf(destination)).toBe(100n * 10n ** 18n);
    expect(await balanceOf(destination)).toBe(parseEther('0.5') - ethFee + parseEther('0.01') - tokenFee - topUpFee);
  });

  it('refuses a token withdrawal without gas with a typed error that says what to do, and sends nothing', { timeout: 60_000 }, async () => {
    const payment = createStealthPayment(recipient.metaAddress);
    await payStealth({ wallet: chain.wallets[0]!, client: chain.publicClient, payment, asset: { type: 'erc20', token, amount: 5n, gasTopUp: 0n } });
    const discovery = (await discover()).find((d) => d.stealthAddress === payment.stealthAddress)!;
    const stealth = discovery.stealthAddress as Address;
    // One destination for both calls: the transfer's gas depends on it (a zero byte of calldata costs 4 gas, another 16).
    const to = freshAddress();
    const error = await withdrawToken({ client: chain.publicClient, stealthSecretKey: discovery.stealthSecretKey!, token, to }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InsufficientGasError);
    const gasError = error as InsufficientGasError;
    expect(gasError.code).toBe('INSUFFICIENT_GAS');
    expect(gasError.address).toBe(stealth);
    expect(gasError.available).toBe(0n);
    expect(gasError.required).toBeGreaterThan(0n);
    expect(gasError.message).toContain(`Send at least ${gasError.required} wei`);
    expect(gasError.message).not.toContain(bytesHex(discovery.stealthSecretKey!).slice(2));
    // The estimate says the same before anyone signs.
    const estimated = await estimateWithdrawal({ client: chain.publicClient, from: stealth, to, token }).catch((e: unknown) => e);
    expect(estimated).toBeInstanceOf(InsufficientGasError);
    expect((estimated as InsufficientGasError).required).toBe(gasError.required);
    // Nothing left the stealth address: no transaction, the tokens still there.
    expect(await chain.publicClient.getTransactionCount({ address: stealth })).toBe(0);
    expect(await tokensOf(stealth)).toBe(5n);
    // An empty native balance cannot be swept either.
    await expect(withdrawNative({ client: chain.publicClient, stealthSecretKey: discovery.stealthSecretKey!, to: freshAddress() })).rejects.toBeInstanceOf(InsufficientGasError);
  });

  it('adds a gas top-up priced from the chain to a token payment by default, and the recipient can withdraw the tokens with it', { timeout: 60_000 }, async () => {
    const payment = createStealthPayment(recipient.metaAddress);
    await feeOf(await chain.wallets[0]!.writeContract({ address: token, abi: erc20Abi, functionName: 'transfer', args: [chain.accounts[1]!.address, 7n * 10n ** 18n] }));
    const priced = await estimateGasTopUp({ client: chain.publicClient, token, amount: 7n * 10n ** 18n, from: chain.accounts[1]!.address });
    expect(priced).toMatchObject({ feeModel: 'standard', l1Fee: 0n });
    // Twice today's fee of the withdrawal (the default margin of 100 %).
    expect(priced.topUp).toBe(2n * priced.fee);
    const paid = await payStealth({ wallet: chain.wallets[1]!, client: chain.publicClient, payment, asset: { type: 'erc20', token, amount: 7n * 10n ** 18n } });
    const topUp = (await chain.publicClient.getTransaction({ hash: paid.topUpHash! })).value;
    // Priced again at payment time (the base fee moved with the blocks since): the same rule, the same order of size.
    expect(topUp).toBeGreaterThan(priced.fee);
    expect(await balanceOf(payment.stealthAddress as Address)).toBe(topUp);
    const discovery = (await discover()).find((d) => d.stealthAddress === payment.stealthAddress)!;
    const out = await withdrawToken({ client: chain.publicClient, stealthSecretKey: discovery.stealthSecretKey!, token, to: freshAddress() });
    expect(out.fee).toBeLessThanOrEqual(topUp);
    await feeOf(out.hash);
    expect(await tokensOf(payment.stealthAddress as Address)).toBe(0n);
  });

  it('reports a payment whose announcement failed with its hash, so it can be announced again instead of paid twice', { timeout: 60_000 }, async () => {
    const payment = createStealthPayment(recipient.metaAddress);
    // An "announcer" without announce(): the transfer goes through, the announcement cannot.
    const error = await payStealth({ wallet: chain.wallets[3]!, client: chain.publicClient, payment, asset: { type: 'native', value: parseEther('0.1') }, announcer: token }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaymentNotAnnouncedError);
    const failed = error as PaymentNotAnnouncedError;
    expect(failed.code).toBe('PAYMENT_NOT_ANNOUNCED');
    expect(getAddress((await chain.publicClient.getTransaction({ hash: failed.paymentHash })).to!)).toBe(payment.stealthAddress);
    expect(await balanceOf(payment.stealthAddress as Address)).toBe(parseEther('0.1'));
    expect((await discover()).some((d) => d.stealthAddress === payment.stealthAddress)).toBe(false);
    // Announced again with the same payment, the recipient finds it.
    const hash = await chain.wallets[3]!.writeContract(announceParameters({ payment, note: { amount: parseEther('0.1'), txHash: failed.paymentHash, chainId: 31337n } }) as never);
    await feeOf(hash);
    const found = (await discover()).find((d) => d.stealthAddress === payment.stealthAddress);
    expect(found?.note).toMatchObject({ amount: parseEther('0.1'), txHash: failed.paymentHash });
  });

  it('reports a payment the wallet sent whose receipt could not be read with its hash, as not announced, instead of an error that forgets it was sent', { timeout: 60_000 }, async () => {
    // The payer's reads go through a provider that fails every receipt (HTTP 503); the wallet itself sends fine.
    const proxy = await startRpcFaultProxy({ target: chain.rpcUrl, failureRate: 1, modes: ['5xx'], faultMethods: ['eth_getTransactionReceipt'] });
    try {
      const client = createPublicClient({ chain: foundry, transport: http(proxy.url, { retryCount: 0 }), pollingInterval: 50 });
      for (const asset of [{ type: 'native', value: parseEther('0.05') }, { type: 'erc20', token, amount: 5n, gasTopUp: 0n }] as const) {
        const payment = createStealthPayment(recipient.metaAddress);
        const error = await payStealth({ wallet: chain.wallets[0]!, client: client as never, payment, asset }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(PaymentNotAnnouncedError);
        const failed = error as PaymentNotAnnouncedError;
        // The hash is the transfer the wallet sent, which the chain did mine: the money is at the one-time address, waiting for its announcement.
        expect((await chain.publicClient.waitForTransactionReceipt({ hash: failed.paymentHash })).status).toBe('success');
        if (asset.type === 'native') expect(await balanceOf(payment.stealthAddress as Address)).toBe(parseEther('0.05'));
        else expect(await tokensOf(payment.stealthAddress as Address)).toBe(5n);
        expect((await discover()).some((d) => d.stealthAddress === payment.stealthAddress)).toBe(false);
      }
      expect(proxy.stats.failed['5xx']).toBeGreaterThan(0);
    } finally {
      await proxy.close();
    }
  });

  it('refuses a native sweep to a contract (its gas is unknown, so 0 wei could not be guaranteed) unless a remainder is allowed', { timeout: 60_000 }, async () => {
    const payment = createStealthPayment(recipient.metaAddress);
    await payStealth({ wallet: chain.wallets[2]!, client: chain.publicClient, payment, asset: { type: 'native', value: parseEther('0.2') } });
    const discovery = (await discover()).find((d) => d.stealthAddress === payment.stealthAddress)!;
    const refused = await withdrawNative({ client: chain.publicClient, stealthSecretKey: discovery.stealthSecretKey!, to: chain.announcer }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(InvalidArgumentError);
    expect((refused as InvalidArgumentError).message).toContain('is a contract');
    expect(await balanceOf(discovery.stealthAddress as Address)).toBe(parseEther('0.2'));
    // Allowed, to a contract that takes ether (its code: STOP): all but the unused part of the fee's bound arrives.
    const wallet = freshAddress();
    await chain.publicClient.request({ method: 'anvil_setCode', params: [wallet, '0x00'] } as never);
    const out = await withdrawNative({ client: chain.publicClient, stealthSecretKey: discovery.stealthSecretKey!, to: wallet, allowRemainder: true });
    const paid = await feeOf(out.hash);
    expect(paid).toBeLessThanOrEqual(out.fee);
    expect(await balanceOf(wallet)).toBe(out.amount);
    expect(out.amount + out.fee).toBe(parseEther('0.2'));
    expect(await balanceOf(discovery.stealthAddress as Address)).toBe(out.fee - paid);
  });

  it('prices a payment before anything is signed: short of coin by one wei, covered at exactly what it needs, short of tokens; then the payment costs no more', { timeout: 60_000 }, async () => {
    const client = chain.publicClient;
    const payer = privateKeyToAccount(generatePrivateKey());
    const wallet = createWalletClient({ account: payer, chain: foundry, transport: http(chain.rpcUrl) });
    const setCoin = (wei: bigint) => client.request({ method: 'anvil_setBalance', params: [payer.address, `0x${wei.toString(16)}`] } as never);
    const payment = createStealthPayment(recipient.metaAddress);
    const asset = { type: 'native', value: parseEther('0.3') } as const;
    const priced = await estimatePayment({ client, from: payer.address, payment, asset });
    expect(priced).toMatchObject({ short: 'coin', coinBalance: 0n, tokenBalance: null, asset, sent: parseEther('0.3'), feeModel: 'standard', l1Fee: 0n });
    if (priced.short === 'token') throw new Error('a coin payment cannot be short of tokens');
    expect(priced.coinNeeded).toBe(priced.sent + priced.fee);
    await setCoin(priced.coinNeeded - 1n);
    expect(await estimatePayment({ client, from: payer.address, payment, asset })).toMatchObject({ short: 'coin', coinNeeded: priced.coinNeeded });
    await setCoin(priced.coinNeeded);
    const covered = await estimatePayment({ client, from: payer.address, payment, asset });
    expect(covered).toMatchObject({ short: null, coinNeeded: priced.coinNeeded });
    // Signed at the estimate's price: the balance it found covering is never asked for more.
    if (covered.short === 'token') throw new Error('a coin payment cannot be short of tokens');
    expect(covered.signWith).toMatchObject({ fees: { maxPriorityFeePerGas: expect.any(BigInt), maxFeePerGas: expect.any(BigInt) }, gas: { payment: 21_000n, topUp: null } });
    const paid = await payStealth({ wallet, client, payment, asset, signWith: covered.signWith });
    const charged = (await feeOf(paid.paymentHash)) + (await feeOf(paid.announcementHash));
    expect(charged).toBeLessThanOrEqual(priced.fee);
    expect(await balanceOf(payer.address)).toBe(priced.fee - charged);
    expect(await balanceOf(payment.stealthAddress as Address)).toBe(parseEther('0.3'));

    // Tokens: 5 held, 7 asked is short of tokens (the transfer would revert, so it is not priced).
    await feeOf(await chain.wallets[0]!.writeContract({ address: token, abi: erc20Abi, functionName: 'transfer', args: [payer.address, 5n * 10n ** 18n] }));
    const tokenPayment = createStealthPayment(recipient.metaAddress);
    expect(await estimatePayment({ client, from: payer.address, payment: tokenPayment, asset: { type: 'erc20', token, amount: 7n * 10n ** 18n } })).toEqual({
      short: 'token',
      coinBalance: priced.fee - charged,
      tokenBalance: 5n * 10n ** 18n,
    });
    // 5 asked, no top-up given: the SDK's is settled and priced, and the coin left does not cover it.
    const tokens = await estimatePayment({ client, from: payer.address, payment: tokenPayment, asset: { type: 'erc20', token, amount: 5n * 10n ** 18n } });
    if (tokens.short === 'token') throw new Error('5 tokens are held');
    expect(tokens.asset).toMatchObject({ type: 'erc20', token, amount: 5n * 10n ** 18n });
    const topUp = (tokens.asset as { gasTopUp: bigint }).gasTopUp;
    expect(topUp).toBeGreaterThan(0n);
    expect(tokens).toMatchObject({ short: 'coin', sent: topUp, tokenBalance: 5n * 10n ** 18n, coinNeeded: topUp + tokens.fee });
    await expect(estimatePayment({ client, from: payer.address, payment, asset: { type: 'native', value: 0n } })).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(estimatePayment({ client, from: 'nobody', payment, asset })).rejects.toBeInstanceOf(InvalidArgumentError);
  });

  it('checks its inputs before touching the chain', async () => {
    const client = chain.publicClient;
    await expect(withdrawNative({ client, stealthSecretKey: '0x1234', to: freshAddress() })).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(withdrawNative({ client, stealthSecretKey: `0x${'00'.repeat(32)}`, to: freshAddress() })).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(withdrawNative({ client, stealthSecretKey: generatePrivateKey(), to: 'not an address' })).rejects.toBeInstanceOf(InvalidArgumentError);
    const key = generatePrivateKey();
    await expect(withdrawNative({ client, stealthSecretKey: key, to: privateKeyToAccount(key).address })).rejects.toThrow('is the stealth address itself');
    const payment = createStealthPayment(recipient.metaAddress);
    await expect(payStealth({ wallet: chain.wallets[0]!, client, payment, asset: { type: 'native', value: 0n } })).rejects.toThrow('asset.value');
    const gas = { payment: 21_000n, topUp: null, announcement: 100_000n };
    await expect(payStealth({ wallet: chain.wallets[0]!, client, payment, asset: { type: 'native', value: 1n }, signWith: { fees: { maxFeePerGas: 1n } as never, gas } })).rejects.toThrow('signWith.fees');
    await expect(payStealth({ wallet: chain.wallets[0]!, client, payment, asset: { type: 'native', value: 1n }, signWith: { fees: { gasPrice: -1n }, gas } })).rejects.toThrow('signWith.fees');
    await expect(payStealth({ wallet: chain.wallets[0]!, client, payment, asset: { type: 'native', value: 1n }, signWith: { fees: { gasPrice: 1n }, gas: { ...gas, announcement: 0n } } })).rejects.toThrow('signWith.gas');
    await expect(stealthBalances({ client, addresses: ['0x12'] })).rejects.toBeInstanceOf(InvalidArgumentError);
  });

  it('signs at the wallet\'s price when the base fee passed the pinned cap since the estimate (a cap under it would never be mined)', { timeout: 60_000 }, async () => {
    const client = chain.publicClient;
    const wallet = chain.wallets[3]!;
    const payment = createStealthPayment(recipient.metaAddress);
    const asset = { type: 'native', value: parseEther('0.1') } as const;
    const estimate = await estimatePayment({ client, from: wallet.account.address, payment, asset });
    if (estimate.short !== null) throw new Error('a dev account covers 0.1 ETH');
    const cap = (estimate.signWith.fees as { maxFeePerGas: bigint }).maxFeePerGas;
    await client.request({ method: 'anvil_setNextBlockBaseFeePerGas', params: [`0x${(cap * 10n).toString(16)}`] } as never);
    await client.request({ method: 'evm_mine', params: [] } as never);
    const paid = await payStealth({ wallet, client, payment, asset, signWith: estimate.signWith });
    for (const hash of [paid.paymentHash, paid.announcementHash]) {
      const receipt = await client.waitForTransactionReceipt({ hash });
      expect(receipt.status).toBe('success');
      expect(receipt.effectiveGasPrice).toBeGreaterThan(cap);
    }
    expect(await balanceOf(payment.stealthAddress as Address)).toBe(parseEther('0.1'));
  });
});

function bytesHex(bytes: Uint8Array): Hex {
  return `0x${Buffer.from(bytes).toString('hex')}`;
}
