/**
 * The chain the CLI's money tests run on: anvil with the ERC-5564 Announcer (tests/helpers/
 * announcer-chain.ts) and the solc-compiled test ERC-20 (TST, 18 decimals, 1,000,000 held by the
 * first dev account).
 */
import { getAddress, type Address } from 'viem';
import { startAnnouncerChain, type AnnouncerChain } from '../helpers/announcer-chain.ts';
import { compileContracts } from '../helpers/anvil.ts';

export async function startTokenChain(): Promise<{ chain: AnnouncerChain; token: Address }> {
  const chain = await startAnnouncerChain();
  const { abi, bytecode } = compileContracts(new URL('../fixtures/erc20/', import.meta.url))['TestToken']!;
  const hash = await chain.wallets[0]!.deployContract({ abi, bytecode, args: ['Test Token', 'TST', 18, 10n ** 24n] } as never);
  const token = getAddress((await chain.publicClient.waitForTransactionReceipt({ hash })).contractAddress!);
  return { chain, token };
}
