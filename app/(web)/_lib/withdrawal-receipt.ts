/**
 * How the page words a fee bound (what a mined withdrawal cost is the SDK's `feePaidOf`): the SDK
 * prices every withdrawal before signing (`feeKind`: `exact` on a standard chain, `maximum` where
 * an L1 data fee or an estimated gas limit makes the charge smaller than the bound; issue 24).
 * @module
 */
import type { EstimateWithdrawalReturnType } from '@wraith-pq/sdk/evm';

/** The fee is a bound, not the exact charge (the SDK's `feeKind: 'maximum'`, OP Stack and Arbitrum). */
export function feeIsBound(estimate: Pick<EstimateWithdrawalReturnType, 'feeKind'>): boolean {
  return estimate.feeKind === 'maximum';
}
