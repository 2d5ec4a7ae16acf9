/**
 * Wraith on an EVM chain: announcements through the ERC-5564 Announcer (PROTOCOL.md section 7).
 *
 * A sender announces a payment with {@link announceParameters} (viem `writeContract`); a
 * recipient scans the chain with {@link chainAnnouncementPages} and `scanRegistry`, from any
 * RPC provider or browser wallet, no server needed. {@link fetchAnnouncements} reads a block
 * range robustly (ranges split when refused, transient faults retried, no block skipped);
 * {@link decodeAnnouncementLogs} validates logs and counts the bad ones. Money moves with
 * {@link payStealth} (pay and announce from the sender's wallet, in one transaction through the
 * {@link WRAITH_PAY_ADDRESS | WraithPay} contract where it is deployed), {@link stealthBalances} and
 * {@link withdrawNative} / {@link withdrawToken} (priced first by {@link estimateWithdrawal} for the chain they run on,
 * OP Stack L1 data fee and Arbitrum L1 gas included; signed with the one-time key, no relayer).
 *
 * Import it as `@wraith-pq/sdk/evm`. viem (>= 2.57) is a peer dependency of this entry only:
 * the core `@wraith-pq/sdk` never loads it.
 * @module
 */
export {
  ANNOUNCER_ADDRESS,
  WRAITH_SCHEME_ID,
  ANNOUNCEMENT_EVENT_TOPIC,
  announcerAbi,
  announceParameters,
  type AnnounceParameters,
  type AnnounceParametersReturnType,
} from './announcer.ts';
export {
  decodeAnnouncementLogs,
  DEFAULT_SCHEME_IDS,
  type ChainAnnouncement,
  type DecodeAnnouncementLogsOptions,
  type DecodeAnnouncementLogsReturnType,
  type DecodeSkipReason,
  type RpcLogLike,
  type RpcQuantity,
} from './decode-logs.ts';
export { fetchAnnouncements, DEFAULT_MAX_BLOCK_RANGE, type FetchAnnouncementsParameters, type FetchAnnouncementsReturnType } from './fetch-announcements.ts';
export { chainAnnouncementPages, type ChainAnnouncementPagesParameters, type ChainPageSourceChain } from './chain-pages.ts';
export { chainCursor, cursorPosition } from './cursor.ts';
export { ChainRpcError, type ChainRpcFailure } from './errors.ts';
export {
  payStealth,
  estimatePayment,
  stealthBalances,
  estimateWithdrawal,
  estimateGasTopUp,
  withdrawNative,
  withdrawToken,
  InsufficientGasError,
  PaymentNotAnnouncedError,
  type ChainFeeModel,
  type FeeKind,
  type PricedAt,
  type PaymentAsset,
  type EstimateGasTopUpParameters,
  type EstimateGasTopUpReturnType,
  type EstimateWithdrawalParameters,
  type EstimateWithdrawalReturnType,
  type WithdrawalPrice,
  type PayStealthParameters,
  type PayStealthReturnType,
  type EstimatePaymentParameters,
  type EstimatePaymentReturnType,
  type PaymentPrice,
  type PaymentFees,
  type PaymentSigning,
  type PaymentRoute,
  type PayerBalances,
  type StealthBalance,
  type StealthBalancesParameters,
  type WithdrawParameters,
  type WithdrawNativeParameters,
  type WithdrawReturnType,
} from './funds.ts';
export {
  WRAITH_PAY_ADDRESS,
  WRAITH_PAY_SALT,
  CREATE2_DEPLOYER_ADDRESS,
  wraithPayAbi,
  wraithPayInitCode,
  wraithPayDeployed,
  type WraithPayDeployedParameters,
  deployWraithPay,
  type DeployWraithPayParameters,
  type DeployWraithPayReturnType,
} from './wraith-pay.ts';
export { feePaidOf, type FeePaidOfParameters } from './fee-model.ts';
export {
  estimateTransactionFees,
  type EstimateTransactionFeesParameters,
  type EstimateTransactionFeesReturnType,
  type TransactionToPrice,
} from './withdrawal-plan.ts';
export { classifyRpcFault, type ChainRpcClient, type ChainRetryOptions, type ChainRetryEvent, type RpcFault } from './rpc-request.ts';
export {
  ERC6538_REGISTRY_ADDRESS,
  erc6538Abi,
  estimateRegistration,
  registerKeysOnBehalfParameters,
  registerKeysParameters,
  registrationTypedData,
  resolveRegisteredMetaAddress,
  schemeIdOfMetaAddress,
  signRegistration,
  stealthMetaAddressOf,
  type EstimateRegistrationParameters,
  type RegisterKeysCall,
  type RegisterKeysOnBehalfParameters,
  type RegisterKeysParameters,
  type ResolvedMetaAddress,
  type SignRegistrationParameters,
  type StealthMetaAddressOfParameters,
} from './erc6538.ts';
export {
  estimateGaslessWithdrawal,
  withdrawGasless,
  GaslessWithdrawalRevertedError,
  type GaslessRoute,
  type GaslessGas,
  type EstimateGaslessWithdrawalParameters,
  type EstimateGaslessWithdrawalReturnType,
  type WithdrawGaslessParameters,
  type WithdrawGaslessReturnType,
} from './gasless.ts';
export { ENTRY_POINT_V08, SIMPLE_7702_ACCOUNT, wraithPaymasterAbi } from './gasless-contracts.ts';
export { BundlerUnreachableError, PaymasterRefusedError, QuoteExpiredError, FeeAboveMaxError, EntryPointMissingError, TokenBelowFeeError } from './gasless-errors.ts';
