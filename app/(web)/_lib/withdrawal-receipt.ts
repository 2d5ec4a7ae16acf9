/**
 * What a mined withdrawal cost, from its receipt, and how the page words a fee bound: the SDK
 * prices every withdrawal before signing (`feeKind`: `exact` on a standard chain, `maximum` where
 * an L1 data fee or an estimated gas limit makes the charge smaller than the bound; issue 24).
 * @module
 */
import type { EstimateWithdrawalReturnType } from '@wraith-pq/sdk/evm';

/** What a mined transaction cost its sender: gas used × price, plus the L1 data fee an OP Stack receipt states (`l1Fee`). */
export function feePaid(receipt: { gasUsed: bigint; effectiveGasPrice: bigint }): bigint {
  const l1Fee = (receipt as { l1Fee?: unknown }).l1Fee;
  const l1 = typeof l1Fee === 'bigint' ? l1Fee : typeof l1Fee === 'string' && /^0x[0-9a-f]+$/i.test(l1Fee) ? BigInt(l1Fee) : 0n;
  return receipt.gasUsed * receipt.effectiveGasPrice + l1;
}

/** The fee is a bound, not the exact charge (the SDK's `feeKind: 'maximum'`, OP Stack and Arbitrum). */
export function feeIsBound(estimate: Pick<EstimateWithdrawalReturnType, 'feeKind'>): boolean {
  return estimate.feeKind === 'maximum';
}

/** "exactly" or "at most": how a fee bound reads before signing. */
export function feeKindWord(estimate: Pick<EstimateWithdrawalReturnType, 'feeKind'>): 'exactly' | 'at most' {
  return feeIsBound(estimate) ? 'at most' : 'exactly';
}
