/**
 * Issue 31: what a gasless withdrawal costs in gas, against a plain `withdrawToken` (the one-time
 * address pays its own gas in the coin), on anvil (Prague) with EntryPoint v0.8, Simple7702Account,
 * WraithTokenPaymaster and the alto bundler (tests/helpers/account-abstraction.ts).
 *
 * Measured from the receipts: the plain withdrawal's transaction; the first gasless claim of an
 * address (its bundle transaction carries the EIP-7702 authorization); a later claim from the same
 * address (already delegated). For the gasless ones also the operation's `actualGasUsed` (what
 * the EntryPoint charged the paymaster for) and the fee taken in the token.
 */
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts';
import { estimateGaslessWithdrawal, withdrawGasless, withdrawToken } from '../sdk/src/evm/index.ts';
import { startGaslessChain, TOKEN_DECIMALS } from '../tests/helpers/account-abstraction.ts';

export type GaslessGasRow = { claim: string; transactionGas: bigint; operationGas: bigint | null; feeInToken: bigint | null };

export async function benchGasless(): Promise<GaslessGasRow[]> {
  const g = await startGaslessChain();
  try {
    const client = g.chain.publicClient;
    const amount = 50n * 10n ** BigInt(TOKEN_DECIMALS);
    const route = { client, token: g.token, bundler: g.bundlerUrl, paymaster: g.paymaster };
    const rows: GaslessGasRow[] = [];

    // Plain: tokens plus a coin top-up, withdrawn by the address itself.
    const plainKey = generatePrivateKey();
    const plain = privateKeyToAddress(plainKey);
    await g.mint(plain, amount);
    await g.chain.wallets[0]!.sendTransaction({ to: plain, value: 10n ** 16n });
    const sent = await withdrawToken({ client, stealthSecretKey: plainKey, token: g.token, to: privateKeyToAddress(generatePrivateKey()) });
    rows.push({ claim: 'withdrawToken (address pays its gas in coin)', transactionGas: (await client.waitForTransactionReceipt({ hash: sent.hash })).gasUsed, operationGas: null, feeInToken: null });

    // Gasless: a first claim (authorization) and a later one from the same address.
    const key = generatePrivateKey();
    const address = privateKeyToAddress(key);
    for (const claim of ['gasless, first claim (EIP-7702 authorization)', 'gasless, later claim (already delegated)']) {
      await g.mint(address, amount);
      const to = privateKeyToAddress(generatePrivateKey());
      const quote = await estimateGaslessWithdrawal({ ...route, from: address, to });
      const done = await withdrawGasless({ ...route, stealthSecretKey: key, to, maxFee: quote.fee });
      const receipt = await client.getTransactionReceipt({ hash: done.transactionHash });
      rows.push({ claim, transactionGas: receipt.gasUsed, operationGas: done.actualGasUsed, feeInToken: done.fee });
    }

    console.log('\n## Gasless withdrawal gas (issue 31)\n');
    console.log('| claim | transaction gas | vs withdrawToken | operation gas (actualGasUsed) | fee in the token |');
    console.log('|---|---:|---:|---:|---:|');
    const base = Number(rows[0]!.transactionGas);
    for (const row of rows) {
      const fee = row.feeInToken === null ? '' : `${Number(row.feeInToken) / 10 ** TOKEN_DECIMALS} TUSD`;
      console.log(`| ${row.claim} | ${row.transactionGas.toLocaleString('en')} | ${(Number(row.transactionGas) / base).toFixed(2)}x | ${row.operationGas?.toLocaleString('en') ?? ''} | ${fee} |`);
    }
    return rows;
  } finally {
    await g.stop();
  }
}
