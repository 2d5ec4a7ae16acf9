/**
 * The history travels to another browser (app/(web)/_lib/history-store.ts, history.ts): a backup
 * opens only with the keys it was made with, a restore merges (nothing here is lost, nothing is
 * counted twice), and a file that is not a history, is damaged, or is of other keys changes nothing
 * and says why. The store runs here as in the page, against a localStorage of this test's own.
 */
import { generateKeys } from '@wraith-pq/sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EMPTY_HISTORY, historyJson, mergeHistory, parseHistoryRecords, upsertPayment, withWithdrawal, type History, type PaymentRecord } from '../../app/(web)/_lib/history.ts';
import { closeHistory, historyBackup, openHistory, recordHistory, restoreHistory } from '../../app/(web)/_lib/history-store.ts';
import { setUnlockedKeys } from '../../app/(web)/_lib/unlocked-keys.ts';

const payment = (announcementId: number, stealthAddress: string): PaymentRecord => ({
  announcementId,
  chainId: 31337,
  stealthAddress,
  date: `2026-11-27T09:00:0${announcementId}.000Z`,
  amount: '500000000000000000',
  asset: 'native',
  symbol: 'ETH',
  decimals: 18,
  paymentTx: `0x${'11'.repeat(32)}`,
  announcementTx: `0x${'22'.repeat(32)}`,
});
const A = `0x${'aa'.repeat(20)}`;
const B = `0x${'bb'.repeat(20)}`;
const DESTINATION = `0x${'cc'.repeat(20)}`;
const subject = (p: PaymentRecord) => ({ announcementId: p.announcementId, chainId: 31337, stealthAddress: p.stealthAddress, destination: DESTINATION, asset: 'native', symbol: 'ETH', decimals: 18 });

/** Two payments, one withdrawn (after a failure). */
function sample(): History {
  let history = upsertPayment(upsertPayment(EMPTY_HISTORY, payment(1, A)), payment(2, B));
  history = withWithdrawal(history, subject(payment(1, A)), { error: 'holds 0 wei' });
  return withWithdrawal(history, subject(payment(1, A)), { hash: `0x${'33'.repeat(32)}`, amount: 499_979_000_000_000_000n, feePaid: 21_000_000_000_000n, feeBound: 21_000_000_000_000n, feeKind: 'exact' });
}

const storage = new Map<string, string>();
beforeEach(() => {
  storage.clear();
  (globalThis as { window?: unknown }).window = {
    localStorage: { getItem: (k: string) => storage.get(k) ?? null, setItem: (k: string, v: string) => void storage.set(k, v), removeItem: (k: string) => void storage.delete(k) },
  };
});
afterEach(() => {
  closeHistory();
  delete (globalThis as { window?: unknown }).window;
});

/** The open history, as the store's next change would see it. */
async function opened(): Promise<History> {
  let seen: History = EMPTY_HISTORY;
  await recordHistory((h) => ((seen = h), h));
  return seen;
}

describe('backing up and restoring the history', () => {
  it('a backup made on one browser restores on a fresh one with the same keys, and restoring it twice adds nothing', async () => {
    const keys = generateKeys();
    const original = sample();
    await openHistory(keys);
    await recordHistory(() => original);
    const backup = await historyBackup();
    const file = JSON.parse(backup) as Record<string, string>;
    expect(file).toMatchObject({ kind: 'wraith-history-backup', version: 1 });
    // Encrypted: neither a destination nor a stealth address in the clear.
    for (const secret of [DESTINATION, A, B]) expect(backup.toLowerCase()).not.toContain(secret.slice(2));

    closeHistory();
    storage.clear(); // another browser
    await openHistory(keys);
    expect((await opened()).payments).toEqual([]);
    expect(await restoreHistory(backup)).toMatchObject({ payments: 2, withdrawals: 2, conflicts: 0 });
    const restored = await opened();
    expect(restored.payments).toEqual(original.payments);
    expect(restored.withdrawals).toEqual(original.withdrawals);
    expect(await restoreHistory(backup)).toMatchObject({ payments: 0, withdrawals: 0, conflicts: 0 });
    expect((await opened()).withdrawals).toHaveLength(2);

    // What was restored is saved: a reload opens it.
    closeHistory();
    await openHistory(keys);
    expect((await opened()).payments).toHaveLength(2);
  });

  it('refuses a backup of other keys, a damaged one, and a file that is not a history, changing nothing', async () => {
    const keys = generateKeys();
    await openHistory(keys);
    await recordHistory(() => sample());
    const backup = await historyBackup();
    closeHistory();

    await openHistory(generateKeys());
    await expect(restoreHistory(backup)).rejects.toThrow('This backup belongs to other keys: unlock the keys it was made with to restore it.');
    closeHistory();

    storage.clear();
    await openHistory(keys);
    const file = JSON.parse(backup) as Record<string, string>;
    const flipped = `${file.ciphertext!.slice(0, -2)}${file.ciphertext!.endsWith('00') ? '01' : '00'}`;
    await expect(restoreHistory(JSON.stringify({ ...file, ciphertext: flipped }))).rejects.toThrow('This backup does not open with these keys: it is damaged. Nothing was restored.');
    await expect(restoreHistory('not json')).rejects.toThrow('not JSON');
    await expect(restoreHistory(JSON.stringify({ kind: 'wraith-keystore', version: 1 }))).rejects.toThrow('This file is not a Wraith history backup or export.');
    // A JSON export with one record damaged: the whole file is refused, the record named.
    const exported = JSON.parse(historyJson(sample())) as { withdrawals: Record<string, unknown>[] };
    exported.withdrawals[1]!.feePaid = '21000 wei';
    await expect(restoreHistory(JSON.stringify(exported))).rejects.toThrow('The withdrawal at position 2 of this file is damaged (its feePaid): nothing was restored.');
    expect(await opened()).toEqual(EMPTY_HISTORY);
    // The export itself restores.
    expect(await restoreHistory(historyJson(sample()))).toMatchObject({ payments: 2, withdrawals: 2 });
  });

  it('merges: what this history says is kept, a gap is filled, and an announcement known under another address is left out', () => {
    const here = upsertPayment(EMPTY_HISTORY, { ...payment(1, A), symbol: null, decimals: null, asset: null, paymentTx: `0x${'44'.repeat(32)}` });
    const other = { payments: [payment(1, A), payment(2, B), payment(3, A.replace('aa', 'dd'))], withdrawals: [] };
    const otherServer = { payments: [payment(1, B)], withdrawals: [{ ...sample().withdrawals[1]!, stealthAddress: B }] };
    const merged = mergeHistory(here, other);
    expect(merged).toMatchObject({ payments: 2, withdrawals: 0, conflicts: 0 });
    expect(merged.history.payments[0]).toMatchObject({ symbol: 'ETH', decimals: 18, asset: 'native', paymentTx: `0x${'44'.repeat(32)}` });
    expect(mergeHistory(merged.history, otherServer)).toMatchObject({ payments: 0, withdrawals: 0, conflicts: 2 });
    expect(mergeHistory(merged.history, other).history).toBe(merged.history); // nothing new: no write
    expect(() => parseHistoryRecords({ version: 2, payments: [], withdrawals: [] })).toThrow('another version of Wraith');
  });

  it('is closed when the keys are locked or replaced, whichever page locks them', async () => {
    const keys = generateKeys();
    setUnlockedKeys(keys);
    await openHistory(keys);
    await recordHistory(() => sample());
    await expect(historyBackup()).resolves.toContain('wraith-history-backup');
    setUnlockedKeys(generateKeys()); // other keys: this history is not theirs
    await expect(historyBackup()).rejects.toThrow('Unlock your keys first');
    const again = generateKeys();
    setUnlockedKeys(again);
    await openHistory(again);
    await expect(historyBackup()).resolves.toContain('wraith-history-backup');
    setUnlockedKeys(null); // the Receive page's Lock
    await expect(historyBackup()).rejects.toThrow('Unlock your keys first');
  });
});
