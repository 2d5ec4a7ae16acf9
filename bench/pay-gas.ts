/**
 * Issue 30: the gas of one payment through WraithPay (one transaction pays and announces) against
 * the separate transactions payStealth sends where the contract is missing (the transfer, a token
 * payment's gas top-up, the announcement), measured in the same run on anvil with the same
 * payStealth: first on a chain without WraithPay, then after `deployWraithPay`. Each figure is
 * the gas used of every transaction of one payment, the median of `PAY_GAS_ROUNDS` payments
 * (default 5) to fresh one-time addresses, with the note sealed (93 bytes of metadata).
 */
import { erc20Abi, getAddress, parseEther, type Address, type Hash } from 'viem';
import { createStealthPayment, generateKeys } from '../sdk/src/index.ts';
import { deployWraithPay, payStealth, WRAITH_PAY_ADDRESS, type PaymentAsset, type PayStealthReturnType } from '../sdk/src/evm/index.ts';
import { startAnnouncerChain, type AnnouncerChain } from '../tests/helpers/announcer-chain.ts';
import { compileContracts } from '../tests/helpers/anvil.ts';
import { median } from './harness.ts';

type Row = { name: string; transactions: number; separate: number; contract: number; contractTransactions: number };

export async function benchPayGas(): Promise<Row[]> {
  const rounds = Number(process.env.PAY_GAS_ROUNDS ?? 5);
  const chain = await startAnnouncerChain();
  try {
    const { abi, bytecode } = compileContracts(new URL('../tests/fixtures/erc20/', import.meta.url))['TestToken']!;
    const deployHash = await chain.wallets[0]!.deployContract({ abi, bytecode, args: ['Test Token', 'TST', 18, 10n ** 24n] } as never);
    const token = getAddress((await chain.publicClient.waitForTransactionReceipt({ hash: deployHash })).contractAddress!) as Address;
    const recipient = generateKeys();
    const wallet = chain.wallets[1]!;
    await chain.publicClient.waitForTransactionReceipt({ hash: await chain.wallets[0]!.writeContract({ address: token, abi: erc20Abi, functionName: 'transfer', args: [wallet.account.address, 10n ** 22n] }) });
    const gasOf = async (hashes: readonly Hash[]) => {
      let total = 0n;
      for (const hash of hashes) total += (await chain.publicClient.waitForTransactionReceipt({ hash })).gasUsed;
      return Number(total);
    };
    const cases: { name: string; asset: PaymentAsset; allowance?: boolean }[] = [
      { name: 'coin (0.5 ETH)', asset: { type: 'native', value: parseEther('0.5') } },
      { name: 'token (100 TST) with a gas top-up', asset: { type: 'erc20', token, amount: 100n * 10n ** 18n, gasTopUp: parseEther('0.01') } },
      { name: 'token (100 TST) with a gas top-up, approval included', asset: { type: 'erc20', token, amount: 100n * 10n ** 18n, gasTopUp: parseEther('0.01') }, allowance: false },
    ];
    const measureAll = async (approve: boolean) => {
      const figures = new Map<string, { gas: number[]; transactions: number }>();
      for (const c of cases) {
        const gas: number[] = [];
        let transactions = 0;
        for (let i = 0; i < rounds; i++) {
          // An allowance already in place, as after an earlier payment's approval, unless the case includes it.
          if (approve && c.asset.type === 'erc20' && c.allowance !== false) await allowance(chain, token, c.asset.amount);
          const paid: PayStealthReturnType = await payStealth({ wallet, client: chain.publicClient, payment: createStealthPayment(recipient.metaAddress), asset: c.asset });
          gas.push(await gasOf(paid.hashes));
          transactions = paid.hashes.length;
        }
        figures.set(c.name, { gas, transactions });
      }
      return figures;
    };
    const separate = await measureAll(false);
    await deployWraithPay({ client: chain.publicClient, wallet: chain.wallets[0]! });
    const contract = await measureAll(true);
    const rows = cases.map((c) => ({
      name: c.name,
      transactions: separate.get(c.name)!.transactions,
      separate: median(separate.get(c.name)!.gas),
      contract: median(contract.get(c.name)!.gas),
      contractTransactions: contract.get(c.name)!.transactions,
    }));
    console.log(`\n## One payment through WraithPay against separate transactions (gas used, median of ${rounds} payments each, same run)\n`);
    console.log('| payment | separate transactions | gas | WraithPay transactions | gas | WraithPay / separate |\n|---|---:|---:|---:|---:|---:|');
    for (const r of rows) {
      console.log(`| ${r.name} | ${r.transactions} | ${r.separate.toLocaleString('en-US')} | ${r.contractTransactions} | ${r.contract.toLocaleString('en-US')} | ${(r.contract / r.separate).toFixed(2)}x |`);
    }
    return rows;
  } finally {
    await chain.stop();
  }
}

/** The payer's allowance to WraithPay set to `amount` (the approval of an earlier payment), outside the measured gas. */
async function allowance(chain: AnnouncerChain, token: Address, amount: bigint): Promise<void> {
  const hash = await chain.wallets[1]!.writeContract({ address: token, abi: erc20Abi, functionName: 'approve', args: [WRAITH_PAY_ADDRESS, amount] });
  await chain.publicClient.waitForTransactionReceipt({ hash });
}
