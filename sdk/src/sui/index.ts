/**
 * Wraith on Sui: a discovery's `stealthSuiAddress` (PROTOCOL.md section 4 step 6) holds SUI
 * that its one-time key `p` alone can move. {@link suiStealthKeypair} makes that key a
 * @mysten/sui signer, {@link suiStealthBalance} reads what the address holds, and
 * {@link withdrawSui} sweeps all of it to one destination, leaving 0, with no relayer.
 *
 * Privacy: read balances and send withdrawals through a full node of the user's choosing, never
 * through a Wraith server. Withdrawing several stealth addresses to one destination links them
 * on chain for anyone who looks: use a fresh destination per payment where that matters.
 *
 * Import it as `@wraith-pq/sdk/sui`. @mysten/sui (>= 2.33) is a peer dependency of this entry
 * only: the core `@wraith-pq/sdk` never loads it.
 * @module
 */
export { suiStealthKeypair } from './keypair.ts';
export { suiStealthBalance, type SuiStealthBalanceParameters, type SuiStealthBalanceReturnType } from './balance.ts';
export { withdrawSui, type WithdrawSuiParameters, type WithdrawSuiReturnType } from './withdraw.ts';
export { SuiInsufficientGasError, SuiTransactionFailedError } from './errors.ts';
