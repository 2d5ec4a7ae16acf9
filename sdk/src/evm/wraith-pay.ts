/**
 * WraithPay (contracts/src/WraithPay.sol): the project's pay-and-announce contract. One
 * transaction pays a one-time address (coin, or an ERC-20 from the payer plus a coin gas top-up)
 * and announces it on the canonical ERC-5564 Announcer (PROTOCOL.md section 7), so a coin
 * payment is one wallet confirmation instead of two, and a token payment with its top-up at most
 * two (the approval, then the payment) instead of three. It is stateless and holds nothing: what
 * it receives is forwarded in the same call, or the call reverts.
 *
 * It lives at the same address on every chain, {@link WRAITH_PAY_ADDRESS}: deployed through the
 * CREATE2 deployer most chains carry (`0x4e59b448…956c`, calldata = salt || init code) with
 * {@link WRAITH_PAY_SALT}, so the address follows from its bytecode alone and needs no
 * configuration. `payStealth` uses it where its code is at that address; anyone can deploy it on
 * a chain where it is missing with {@link deployWraithPay}.
 * @module
 */
import { concat, encodeFunctionData, getContractAddress, type Account, type Address, type Chain, type Hash, type Hex, type PublicClient, type Transport, type WalletClient } from 'viem';
import { InvalidArgumentError, WraithError } from '../errors.ts';
import type { AnnounceParametersReturnType } from './announcer.ts';
import { wraithPayAbi, wraithPayInitCode, wraithPayRuntimeCode } from './wraith-pay-artifact.ts';

export { wraithPayAbi, wraithPayInitCode } from './wraith-pay-artifact.ts';

/** The deterministic CREATE2 deployer (Arachnid's, present on anvil and most chains): calldata = salt || init code. */
export const CREATE2_DEPLOYER_ADDRESS: Address = '0x4e59b44847b379578588920ca78fbf26c0b4956c';

/** The CREATE2 salt WraithPay is deployed with: zero. */
export const WRAITH_PAY_SALT: Hex = `0x${'00'.repeat(32)}`;

/**
 * Where WraithPay is on every chain: `keccak256(0xff || deployer || salt || keccak256(initCode))`.
 * A test rebuilds it from the init code; a new compiler or source would move it.
 *
 * @example
 * import { WRAITH_PAY_ADDRESS } from '@wraith-pq/sdk/evm';
 * const deployed = (await client.getCode({ address: WRAITH_PAY_ADDRESS })) !== undefined;
 */
export const WRAITH_PAY_ADDRESS: Address = '0x8EA79dCfc5D9Ef20F61c1B6D440C529cEEE0935A';

export type WraithPayDeployedParameters = {
  /** Reads the chain's code at {@link WRAITH_PAY_ADDRESS}. */
  client: PublicClient;
};

/**
 * Whether the chain holds WraithPay's exact runtime code at {@link WRAITH_PAY_ADDRESS}.
 *
 * @example
 * import { wraithPayDeployed } from '@wraith-pq/sdk/evm';
 * if (!(await wraithPayDeployed({ client }))) console.log('payments here take separate transactions');
 */
export async function wraithPayDeployed({ client }: WraithPayDeployedParameters): Promise<boolean> {
  const code = await client.getCode({ address: WRAITH_PAY_ADDRESS });
  return code !== undefined && code.toLowerCase() === wraithPayRuntimeCode;
}

export type DeployWraithPayParameters = {
  /** Reads the chain and waits for the receipt. */
  client: PublicClient;
  /** Any funded account of the chain: deploying gives it no rights over the contract (it has none to give). */
  wallet: WalletClient<Transport, Chain, Account>;
};

export type DeployWraithPayReturnType = {
  address: Address;
  /** The deployment transaction, or null when WraithPay was already there. */
  hash: Hash | null;
};

/**
 * Deploy WraithPay at {@link WRAITH_PAY_ADDRESS} through the CREATE2 deployer, for operators and
 * tests. Does nothing when it is already there.
 * @throws {WraithError} `CREATE2_DEPLOYER_MISSING` when the chain has no deployer at its address,
 * `TRANSACTION_REVERTED` when the deployment failed.
 *
 * @example
 * import { deployWraithPay } from '@wraith-pq/sdk/evm';
 * const { address, hash } = await deployWraithPay({ client, wallet });
 */
export async function deployWraithPay(parameters: DeployWraithPayParameters): Promise<DeployWraithPayReturnType> {
  if (typeof parameters !== 'object' || parameters === null) throw new InvalidArgumentError('parameters', 'must be an object');
  const { client, wallet } = parameters;
  if (wallet?.account === undefined) throw new InvalidArgumentError('wallet', 'must be a viem WalletClient with an account');
  if (await wraithPayDeployed({ client })) return { address: WRAITH_PAY_ADDRESS, hash: null };
  const deployer = await client.getCode({ address: CREATE2_DEPLOYER_ADDRESS });
  if (deployer === undefined || deployer === '0x') {
    throw new WraithError('CREATE2_DEPLOYER_MISSING', `This chain has no CREATE2 deployer at ${CREATE2_DEPLOYER_ADDRESS}, so WraithPay cannot be placed at ${WRAITH_PAY_ADDRESS}.`, {
      hint: 'Payments on this chain still work: payStealth sends separate transactions where WraithPay is missing.',
    });
  }
  const hash = await wallet.sendTransaction({ account: wallet.account, chain: wallet.chain, to: CREATE2_DEPLOYER_ADDRESS, data: concat([WRAITH_PAY_SALT, wraithPayInitCode]) });
  const receipt = await client.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success' || !(await wraithPayDeployed({ client }))) throw new WraithError('TRANSACTION_REVERTED', `Deploying WraithPay in ${hash} failed.`);
  return { address: WRAITH_PAY_ADDRESS, hash };
}

/** The address CREATE2 gives `initCode` with {@link WRAITH_PAY_SALT} (tests compare it with {@link WRAITH_PAY_ADDRESS}). @internal */
export function wraithPayAddressOf(initCode: Hex): Address {
  return getContractAddress({ opcode: 'CREATE2', from: CREATE2_DEPLOYER_ADDRESS, salt: WRAITH_PAY_SALT, bytecode: initCode });
}

/** A call to WraithPay: where, the coin it carries, its calldata. @internal */
export type WraithPayCall = { to: Address; value: bigint; data: Hex };

type Announce = AnnounceParametersReturnType['args'];

/** `payNative`: `amount` of coin to the announced stealth address, and the announcement. @internal */
export function payNativeCall(amount: bigint, [schemeId, stealthAddress, ephemeralPubKey, metadata]: Announce): WraithPayCall {
  return { to: WRAITH_PAY_ADDRESS, value: amount, data: encodeFunctionData({ abi: wraithPayAbi, functionName: 'payNative', args: [stealthAddress, amount, schemeId, ephemeralPubKey, metadata] }) };
}

/** `payToken`: `amount` of `token` from the caller, `gasTopUp` of coin, and the announcement. @internal */
export function payTokenCall(token: Address, amount: bigint, gasTopUp: bigint, [schemeId, stealthAddress, ephemeralPubKey, metadata]: Announce): WraithPayCall {
  return {
    to: WRAITH_PAY_ADDRESS,
    value: gasTopUp,
    data: encodeFunctionData({ abi: wraithPayAbi, functionName: 'payToken', args: [stealthAddress, token, amount, gasTopUp, schemeId, ephemeralPubKey, metadata] }),
  };
}
