/**
 * What a developer hands the scanner: every row form the SDK and the API give (payments from
 * createStealthPayment, the /stealth/create response's announcement, registry records, byte rows,
 * chain events), and what the scan says about rows it cannot read.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { encodeAbiParameters, encodeEventTopics, type Hex } from 'viem';
import {
  announcementForPayment,
  announcementFromJson,
  announcementMetadata,
  arrayPageSource,
  bytesToHex,
  createScanner,
  createScanPool,
  createStealthPayment,
  generateKeys,
  InvalidAnnouncementError,
  MALFORMED_LIST_LIMIT,
  parseAnnouncement,
  scanRegistry,
  type AnnouncementInput,
  type AnnouncementRecord,
  type ScanPool,
} from '../src/index.ts';
import { ANNOUNCER_ADDRESS, announcerAbi, decodeAnnouncementLogs, WRAITH_SCHEME_ID, type ChainAnnouncement } from '../src/evm/index.ts';
import { createStealthPaymentJson } from '../../lib/service/stealth-payment.ts';
import { nodeScanWorkerSpawner } from '../../tests/helpers/scan-worker-node.ts';

const keys = generateKeys();
const other = generateKeys();
const scanner = createScanner(keys);

/** The Announcer's log for a payment, as `eth_getLogs` returns it, decoded by the SDK's chain entry. */
function chainAnnouncementOf(payment: ReturnType<typeof createStealthPayment>): ChainAnnouncement {
  const hash = (byte: string): Hex => `0x${byte.repeat(64)}`;
  const topics = encodeEventTopics({
    abi: announcerAbi,
    eventName: 'Announcement',
    args: { schemeId: WRAITH_SCHEME_ID, stealthAddress: payment.stealthAddress as Hex, caller: '0x000000000000000000000000000000000000dEaD' },
  });
  const data = encodeAbiParameters(
    [{ type: 'bytes' }, { type: 'bytes' }],
    [`0x${bytesToHex(payment.ephemeralCiphertext)}`, `0x${bytesToHex(announcementMetadata(payment))}`],
  );
  const log = { address: ANNOUNCER_ADDRESS, topics: topics as Hex[], data, blockNumber: '0x10', logIndex: '0x2', transactionHash: hash('a'), blockHash: hash('b') };
  const { announcements } = decodeAnnouncementLogs([log]);
  expect(announcements).toHaveLength(1);
  return announcements[0]!;
}

/** The registry record of a payment: `announcementForPayment` writes the ciphertext as hex (its request type also allows bytes). */
const recordOf = (id: number, payment: ReturnType<typeof createStealthPayment>) =>
  ({ id, ...announcementForPayment(payment, { txHash: `0x${'11'.repeat(32)}` }) }) as AnnouncementRecord;

/** The server's answer to POST /stealth/create, from the function the route calls. */
const createResponse = (note?: { amount: bigint }) =>
  createStealthPaymentJson({ meta_address: bytesToHex(keys.metaAddress), scheme_id: undefined, channel_id: undefined, note: note && { ...note, tx_hash: undefined, chain_id: undefined, token: undefined } });

/** Each accepted form of a payment to `keys`, as a developer would get it. */
function ownRowInEachForm() {
  const payment = createStealthPayment(keys.metaAddress);
  const record = recordOf(7, payment);
  return {
    'a payment from createStealthPayment': payment as AnnouncementInput,
    "the /stealth/create response's announcement": createResponse().announcement,
    'a registry JSON record': record,
    'a byte row (announcementFromJson)': announcementFromJson({
      ...record,
      timestamp: 0,
      channel_id: null,
      tx_hash: record.tx_hash ?? null,
      amount: null,
      chain: null,
      stealth_address: null,
      metadata: null,
      block_number: null,
      log_index: null,
      chain_id: null,
      scheme_id: 1000,
    }),
    'a chain announcement (decodeAnnouncementLogs)': chainAnnouncementOf(createStealthPayment(keys.metaAddress)),
  };
}

const foreignRecord = (id: number): AnnouncementRecord => {
  const p = createStealthPayment(other.metaAddress);
  return { id, ephemeral_key: bytesToHex(p.ephemeralCiphertext), view_tag: p.viewTag };
};

describe('scan accepts every row form the SDK and the API give', () => {
  it.each(Object.entries(ownRowInEachForm()))('finds the payment in %s', (_, row) => {
    const { discoveries, malformed, stats } = scanner.scan([foreignRecord(1), row, foreignRecord(2)]);
    expect(malformed).toEqual([]);
    expect(stats.malformed).toBe(0);
    expect(discoveries).toHaveLength(1);
    expect(discoveries[0]!.index).toBe(1);
    expect(discoveries[0]!.announcement).toBe(row);
    expect(discoveries[0]!.stealthAddressMismatch).toBe(false);
  });

  it('finds a payment at the address createStealthPayment gave the sender, with a key that spends it', () => {
    const payment = createStealthPayment(keys.metaAddress);
    const [found] = scanner.scan([payment]).discoveries;
    expect(found!.stealthAddress).toBe(payment.stealthAddress);
    expect(found!.stealthSecretKey).toHaveLength(32);
  });

  it("opens the sealed note of the server's create response", () => {
    const { announcement } = createResponse({ amount: 42n });
    const [found] = scanner.scan([announcement]).discoveries;
    expect(found!.noteStatus).toBe('opened');
    expect(found!.note!.amount).toBe(42n);
  });

  it('scanRegistry finds them too, rows without a registry id (payments, id 0 of a create response) included', async () => {
    const rows = Object.values(ownRowInEachForm());
    const found = [];
    for await (const batch of scanRegistry(arrayPageSource(rows, 2), keys)) found.push(...batch.discoveries.map((d) => d.announcement));
    expect(new Set(found)).toEqual(new Set(rows));
  });

  it('finds payments in a batch mixing all forms, each at its index', () => {
    const rows = Object.values(ownRowInEachForm());
    const batch = rows.flatMap((row, i) => [foreignRecord(100 + i), row]);
    expect(scanner.scan(batch).discoveries.map((d) => d.index)).toEqual([1, 3, 5, 7, 9]);
  });
});

describe('malformed rows are skipped and reported', () => {
  const good = () => createStealthPayment(keys.metaAddress);
  const truncated = () => ({ ...good(), ephemeralCiphertext: good().ephemeralCiphertext.slice(0, 12) });

  it('reports which rows were skipped and why, while the good rows around them are still found', () => {
    const batch: unknown[] = [
      good(),
      foreignRecord(1),
      { ephemeral_key: 'zz', view_tag: 1 },
      truncated(),
      good(),
      { ...recordOf(5, good()), view_tag: 300 },
      { ephemeralKey: new Uint8Array(1088), viewTag: 1 },
      null,
      createResponse(),
      { ephemeralKey: 'not bytes', viewTag: 1 },
      good(),
    ];
    const { discoveries, malformed, stats } = scanner.scan(batch as AnnouncementInput[]);
    expect(discoveries.map((d) => d.index)).toEqual([0, 4, 10]);
    expect(malformed).toEqual([
      { index: 2, reason: 'ephemeral_key is not valid hex: contains a character that is not a hex digit' },
      { index: 3, reason: 'ephemeralCiphertext must be 1088 bytes, got 12' },
      { index: 5, reason: 'view_tag must be an integer 0..255 (got 300)' },
      { index: 6, reason: 'ephemeralKey must not be all zero' },
      { index: 7, reason: 'is not an object (got null)' },
      { index: 8, reason: "is a /stealth/create response: scan its 'announcement'" },
      { index: 9, reason: 'ephemeralKey must be a Uint8Array (got string)' },
    ]);
    expect(stats.malformed).toBe(7);
    expect(stats.totalScanned).toBe(11);
  });

  it('names a byte row field as the byte row does', () => {
    const row = { ephemeralKey: new Uint8Array(12).fill(1), viewTag: 3 };
    expect(scanner.scan([good(), row]).malformed).toEqual([{ index: 1, reason: 'ephemeralKey must be 1088 bytes, got 12' }]);
  });

  it(`lists at most ${MALFORMED_LIST_LIMIT} rows, the first ones, and counts them all`, () => {
    const junk = Array.from({ length: 150 }, (_, i) => ({ id: i, ephemeral_key: '00', view_tag: 1 }));
    const { malformed, stats, discoveries } = scanner.scan([...junk, good()]);
    expect(MALFORMED_LIST_LIMIT).toBe(100);
    expect(malformed).toHaveLength(100);
    expect(malformed.map((m) => m.index)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(stats.malformed).toBe(150);
    expect(discoveries.map((d) => d.index)).toEqual([150]);
  });

  it('with strict, throws InvalidAnnouncementError naming the row and field', () => {
    const strict = createScanner(keys, { strict: true });
    const batch = [good(), foreignRecord(1), good(), { ephemeralKey: new Uint8Array(12).fill(1), viewTag: 3 }, good()];
    const thrown = (() => {
      try {
        strict.scan(batch);
      } catch (error) {
        return error;
      }
    })();
    expect(thrown).toBeInstanceOf(InvalidAnnouncementError);
    expect((thrown as InvalidAnnouncementError).code).toBe('INVALID_ANNOUNCEMENT');
    expect((thrown as Error).message).toContain('announcements[3].ephemeralKey must be 1088 bytes, got 12');
    expect((thrown as InvalidAnnouncementError).details).toEqual([{ path: 'announcements[3].ephemeralKey', issue: 'must be 1088 bytes, got 12' }]);
    // Well-formed batches scan as usual.
    expect(strict.scan([good(), good()]).discoveries).toHaveLength(2);
  });

  it('with strict, scanRegistry throws at the page holding a malformed row', async () => {
    const rows = [foreignRecord(1), foreignRecord(2), { id: 3, ephemeral_key: '00', view_tag: 1 }];
    const run = async () => {
      for await (const _ of scanRegistry(arrayPageSource(rows, 2), keys, { strict: true }));
    };
    await expect(run()).rejects.toThrow('announcements[0].ephemeral_key must be 1088 bytes, got 1');
  });

  it('scanRegistry lists the malformed rows of each page and counts them in its progress', async () => {
    const payment = good();
    const rows = [foreignRecord(1), { id: 2, ephemeral_key: 'xyz', view_tag: 1 }, recordOf(3, payment), null as unknown as AnnouncementRecord];
    const batches = [];
    for await (const batch of scanRegistry(arrayPageSource(rows, 2), keys)) batches.push(batch);
    expect(batches.map((b) => b.malformed)).toEqual([
      [{ index: 1, reason: 'ephemeral_key is not valid hex: odd number of hex digits' }],
      [{ index: 1, reason: 'is not an object (got null)' }],
    ]);
    expect(batches[1]!.progress.malformed).toBe(2);
    expect(batches[1]!.discoveries.map((d) => d.announcement.id)).toEqual([3]);
  });

  it('parseAnnouncement throws with the path it is given, naming the field as the row does', () => {
    expect(() => parseAnnouncement({ ...good(), viewTag: -1 }, 'rows[2]')).toThrow('Invalid announcement: rows[2].viewTag must be an integer 0..255 (got -1).');
    expect(parseAnnouncement(good()).ephemeralKey).toHaveLength(1088);
  });
});

describe('a scan pool reports malformed rows as one thread does', () => {
  const pools: ScanPool[] = [];
  afterAll(() => pools.forEach((p) => p.close()));

  /** 700 rows: own payments in several forms, junk spread over every slice, more than the list holds at the end. */
  const batch: unknown[] = Array.from({ length: 700 }, (_, i) => {
    if (i % 97 === 5) return createStealthPayment(keys.metaAddress);
    if (i % 41 === 3) return { id: i, ephemeral_key: 'abc', view_tag: 1 };
    if (i % 53 === 0) return { ephemeralKey: new Uint8Array(20).fill(9), viewTag: 2 };
    if (i >= 560) return { id: i, view_tag: 1 };
    return foreignRecord(i);
  });

  it.each([
    { name: 'workers only', useCallingThread: false },
    { name: 'with the calling thread', useCallingThread: true },
  ])('gives the same malformed list, count and discoveries ($name)', async ({ useCallingThread }) => {
    const pool = await createScanPool(keys, { spawn: await nodeScanWorkerSpawner(), size: 2, useCallingThread });
    pools.push(pool);
    const rows = batch as AnnouncementInput[];
    const one = scanner.scan(rows);
    const many = await pool.scan(rows);
    expect(one.malformed.length).toBe(MALFORMED_LIST_LIMIT);
    expect(one.malformed.some((m) => m.index >= 560)).toBe(true);
    expect(many.malformed).toEqual(one.malformed);
    expect(many.stats.malformed).toBe(one.stats.malformed);
    expect(many.discoveries.map((d) => d.index)).toEqual(one.discoveries.map((d) => d.index));
    expect(one.discoveries.length).toBeGreaterThan(0);
  });

  it.each([false, true])('with strict, rejects naming the first malformed row of the batch (calling thread: %s)', async (useCallingThread) => {
    const pool = await createScanPool(keys, { spawn: await nodeScanWorkerSpawner(), size: 2, useCallingThread, strict: true });
    pools.push(pool);
    const rows = Array.from({ length: 300 }, (_, i) => (i === 280 ? { id: i, ephemeral_key: '0x1234', view_tag: 1 } : foreignRecord(i)));
    await expect(pool.scan(rows)).rejects.toThrow('announcements[280].ephemeral_key must be 1088 bytes, got 2');
  });

  it("scanRegistry's strict holds on a pool made without it", async () => {
    const pool = await createScanPool(keys, { spawn: await nodeScanWorkerSpawner(), size: 1 });
    pools.push(pool);
    const rows = [foreignRecord(1), { id: 2, ephemeral_key: 42, view_tag: 1 }] as AnnouncementRecord[];
    const run = async () => {
      for await (const _ of scanRegistry(arrayPageSource(rows), keys, { pool, strict: true }));
    };
    await expect(run()).rejects.toThrow('announcements[1].ephemeral_key must be a hex string (got number)');
  });
});
