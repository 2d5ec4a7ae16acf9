/**
 * What claim-all trusts about a payment's tokens (app/(web)/_lib/payment-funds.ts, claim-run.ts):
 * a read that fails is said, never taken for "no tokens", and a claim of such a payment sends
 * nothing, since sweeping its coin would take the gas its token's withdrawal needs. The client is a
 * stand-in that answers the few reads these make, so each failure can be chosen.
 */
import { type Address, type PublicClient } from 'viem';
import { describe, expect, it } from 'vitest';
import { claimPayment } from '../../app/(web)/_lib/claim-run.ts';
import { readPaymentFunds } from '../../app/(web)/_lib/payment-funds.ts';

const STEALTH: Address = '0x00000000000000000000000000000000000000aa';
const TOKEN: Address = '0x00000000000000000000000000000000000000bB';
const DESTINATION: Address = '0x00000000000000000000000000000000000000cc';
const PAYMENT_TX = `0x${'11'.repeat(32)}`;

type Reads = { transaction?: 'fails'; symbol?: 'fails'; balanceOf?: 'fails' };

/** A chain where STEALTH holds 1 ETH and 5 base units of TOKEN, and where the reads named in `fail` fail. */
function chain(fail: Reads) {
  const sent: string[] = [];
  const refuse = (what: string) => Promise.reject(new Error(`${what}: the node did not answer`));
  const client = {
    getBalance: async () => 10n ** 18n,
    getTransaction: () => (fail.transaction ? refuse('getTransaction') : Promise.resolve({ to: TOKEN, value: 0n })),
    getTransactionReceipt: () =>
      fail.transaction
        ? refuse('getTransactionReceipt')
        : Promise.resolve({
            status: 'success',
            logs: [
              {
                address: TOKEN,
                topics: [
                  '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
                  `0x${'00'.repeat(12)}${'ee'.repeat(20)}`,
                  `0x${'00'.repeat(12)}${STEALTH.slice(2)}`,
                ],
                data: `0x${(5n).toString(16).padStart(64, '0')}`,
              },
            ],
          }),
    readContract: ({ functionName }: { functionName: string }) => {
      if (functionName === 'balanceOf') return fail.balanceOf ? refuse('balanceOf') : Promise.resolve(5n);
      if (fail.symbol) return refuse(functionName);
      return Promise.resolve(functionName === 'symbol' ? 'TST' : 18);
    },
    sendRawTransaction: async (request: { serializedTransaction: string }) => {
      sent.push(request.serializedTransaction);
      return `0x${'22'.repeat(32)}`;
    },
  } as unknown as PublicClient;
  return { client, sent };
}

describe('the tokens a payment holds, as a claim reads them', () => {
  it('reads the token its transaction brought, and says nothing is missing', async () => {
    const funds = await readPaymentFunds({ client: chain({}).client, stealthAddress: STEALTH, txHash: PAYMENT_TX, extraTokens: [] });
    expect(funds.incomplete).toBeNull();
    expect(funds.tokens.map((t) => [t.info.symbol, t.balance])).toEqual([['TST', 5n]]);
  });

  it('keeps a token whose symbol and decimals do not answer, counted in units of its address', async () => {
    const funds = await readPaymentFunds({ client: chain({ symbol: 'fails' }).client, stealthAddress: STEALTH, txHash: PAYMENT_TX, extraTokens: [] });
    expect(funds.incomplete).toBeNull();
    expect(funds.tokens).toHaveLength(1);
    expect(funds.tokens[0]!.balance).toBe(5n);
    expect(funds.tokens[0]!.info.decimals).toBe(0);
    expect(funds.tokens[0]!.info.symbol.toLowerCase()).toBe(`units of the token ${TOKEN.toLowerCase()}`);
  });

  it('says the list is incomplete when the payment transaction or a balance cannot be read', async () => {
    const noTransaction = await readPaymentFunds({ client: chain({ transaction: 'fails' }).client, stealthAddress: STEALTH, txHash: PAYMENT_TX, extraTokens: [] });
    expect(noTransaction.tokens).toEqual([]);
    expect(noTransaction.incomplete).toMatch(/payment's transaction .* could not be read/);
    const noBalance = await readPaymentFunds({ client: chain({ balanceOf: 'fails' }).client, stealthAddress: STEALTH, txHash: PAYMENT_TX, extraTokens: [] });
    expect(noBalance.incomplete).toMatch(/balance of the token .* could not be read/);
  });

  it('refuses to claim a payment whose tokens could not all be read: no key is derived, nothing is sent', async () => {
    for (const fail of [{ transaction: 'fails' }, { balanceOf: 'fails' }] as const) {
      const { client, sent } = chain(fail);
      let keyDerived = false;
      const withdrawals: unknown[] = [];
      const claim = claimPayment({
        client,
        stealthAddress: STEALTH,
        destination: DESTINATION,
        txHash: PAYMENT_TX,
        extraTokens: [],
        coin: { symbol: 'ETH', decimals: 18 },
        secretKey: async () => ((keyDerived = true), new Uint8Array(32).fill(1)),
        onWithdrawal: (asset, outcome) => withdrawals.push([asset, outcome]),
      });
      await expect(claim).rejects.toThrow(/^Could not read which tokens it holds: .+\. Nothing was sent; try again\.$/);
      expect([keyDerived, sent, withdrawals]).toEqual([false, [], []]);
    }
  });
});
