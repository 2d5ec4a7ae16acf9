/**
 * A batch of announcements for one recipient whose notes and announced stealth addresses cover
 * every case of a discovery's note fields (PROTOCOL.md sections 6-8), mixed with foreign
 * payments that carry notes too. Shared by the scanner, pool and registry tests.
 */
import {
  announcementMetadata,
  bytesToHex,
  createStealthPayment,
  generateKeys,
  sealNote,
  type Announcement,
  type AnnouncementRecord,
  type PaymentNote,
  type RecipientKeys,
} from '../src/index.ts';

export type NoteCase = {
  /** What the discovery of this row must say. */
  noteStatus: 'absent' | 'opened' | 'unreadable';
  note: PaymentNote | null;
  stealthAddressMismatch: boolean;
  /** The address the payment was made to (the discovery's stealthAddress). */
  stealthAddress: string;
};

export type NoteBatch = {
  keys: RecipientKeys;
  rows: (AnnouncementRecord | Announcement)[];
  /** By row index, the recipient's rows; every other row is a foreign payment. */
  expected: Map<number, NoteCase>;
};

const txHash = `0x${'ab'.repeat(32)}` as const;
/** USDC on Base, as a version-1 note names it (EIP-55). */
const USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';

export function noteBatch(foreignBetween = 3): NoteBatch {
  const keys = generateKeys();
  const stranger = generateKeys();
  const rows: (AnnouncementRecord | Announcement)[] = [];
  const expected = new Map<number, NoteCase>();
  const foreign = () => {
    for (let i = 0; i < foreignBetween; i++) {
      const p = createStealthPayment(stranger.metaAddress);
      rows.push({
        id: rows.length + 1,
        ephemeral_key: bytesToHex(p.ephemeralCiphertext),
        view_tag: p.viewTag,
        stealth_address: p.stealthAddress,
        metadata: bytesToHex(sealNote(p.sharedSecret, { amount: 1n })),
      });
    }
  };
  const mine = (make: (p: ReturnType<typeof createStealthPayment>, id: number) => AnnouncementRecord | Announcement, expect: Omit<NoteCase, 'stealthAddress'>) => {
    foreign();
    const p = createStealthPayment(keys.metaAddress);
    expected.set(rows.length, { ...expect, stealthAddress: p.stealthAddress });
    rows.push(make(p, rows.length + 1));
  };
  const record = (p: ReturnType<typeof createStealthPayment>, id: number): AnnouncementRecord => ({
    id,
    ephemeral_key: bytesToHex(p.ephemeralCiphertext),
    view_tag: p.viewTag,
  });
  const bytes = (p: ReturnType<typeof createStealthPayment>, id: number): Announcement => ({
    id,
    ephemeralKey: p.ephemeralCiphertext,
    viewTag: p.viewTag,
  });
  const full = { txHash, amount: 1_500_000_000_000_000_000n, chainId: 1n };
  const otherPayment = createStealthPayment(keys.metaAddress);

  // Opened, record form; the announced address in lower case is still the same address.
  mine((p, id) => ({ ...record(p, id), metadata: bytesToHex(sealNote(p.sharedSecret, full)), stealth_address: p.stealthAddress.toLowerCase(), block_number: 7, log_index: 2 }), {
    noteStatus: 'opened',
    note: { ...full, token: null },
    stealthAddressMismatch: false,
  });
  // Opened, byte form, EIP-55 address, a note with the amount alone.
  mine((p, id) => ({ ...bytes(p, id), metadata: sealNote(p.sharedSecret, { amount: 42n }), stealthAddress: p.stealthAddress, blockNumber: 8, logIndex: 0 }), {
    noteStatus: 'opened',
    note: { txHash: null, amount: 42n, chainId: null, token: null },
    stealthAddressMismatch: false,
  });
  // An empty note opens with every field absent.
  mine((p, id) => ({ ...record(p, id), metadata: `0x${bytesToHex(sealNote(p.sharedSecret))}` }), {
    noteStatus: 'opened',
    note: { txHash: null, amount: null, chainId: null, token: null },
    stealthAddressMismatch: false,
  });
  // Unreadable: sealed under another payment's secret; still a discovery.
  mine((p, id) => ({ ...bytes(p, id), metadata: sealNote(otherPayment.sharedSecret, full) }), { noteStatus: 'unreadable', note: null, stealthAddressMismatch: false });
  // Unreadable: the 93-byte on-chain metadata where the note alone belongs.
  mine((p, id) => ({ ...record(p, id), metadata: bytesToHex(announcementMetadata(p, full)) }), { noteStatus: 'unreadable', note: null, stealthAddressMismatch: false });
  // Unreadable: not hex.
  mine((p, id) => ({ ...record(p, id), metadata: 'not a note' }), { noteStatus: 'unreadable', note: null, stealthAddressMismatch: false });
  // Absent, and the announced stealth address is another one: a mismatch is reported.
  mine((p, id) => ({ ...record(p, id), metadata: null, stealth_address: otherPayment.stealthAddress }), { noteStatus: 'absent', note: null, stealthAddressMismatch: true });
  // Absent (empty bytes), a wrong address in byte form, and a readable note: both reported.
  mine((p, id) => ({ ...bytes(p, id), metadata: new Uint8Array(0), stealthAddress: otherPayment.stealthAddress }), { noteStatus: 'absent', note: null, stealthAddressMismatch: true });
  mine((p, id) => ({ ...bytes(p, id), metadata: sealNote(p.sharedSecret, { chainId: 8453 }), stealthAddress: otherPayment.stealthAddress.toLowerCase() }), {
    noteStatus: 'opened',
    note: { txHash: null, amount: null, chainId: 8453n, token: null },
    stealthAddressMismatch: true,
  });
  // The note that names its asset (PROTOCOL.md 8.1, 112 bytes): a token in record form, the coin in byte form.
  mine((p, id) => ({ ...record(p, id), metadata: bytesToHex(sealNote(p.sharedSecret, { ...full, amount: 100_000_000n, token: USDC.toLowerCase() })) }), {
    noteStatus: 'opened',
    note: { ...full, amount: 100_000_000n, token: USDC },
    stealthAddressMismatch: false,
  });
  mine((p, id) => ({ ...bytes(p, id), metadata: sealNote(p.sharedSecret, { amount: 5n * 10n ** 17n, chainId: 31337n, token: 'coin' }), stealthAddress: p.stealthAddress }), {
    noteStatus: 'opened',
    note: { txHash: null, amount: 5n * 10n ** 17n, chainId: 31337n, token: 'coin' },
    stealthAddressMismatch: false,
  });
  // Unreadable: a version-1 note under another payment's secret, and the 113-byte on-chain metadata where the note alone belongs.
  mine((p, id) => ({ ...bytes(p, id), metadata: sealNote(otherPayment.sharedSecret, { amount: 1n, token: 'coin' }) }), { noteStatus: 'unreadable', note: null, stealthAddressMismatch: false });
  mine((p, id) => ({ ...record(p, id), metadata: bytesToHex(announcementMetadata(p, { amount: 1n, token: USDC })) }), { noteStatus: 'unreadable', note: null, stealthAddressMismatch: false });
  // Absent: no fields at all, and an empty string.
  mine((p, id) => record(p, id), { noteStatus: 'absent', note: null, stealthAddressMismatch: false });
  mine((p, id) => ({ ...record(p, id), metadata: '', stealth_address: null }), { noteStatus: 'absent', note: null, stealthAddressMismatch: false });
  foreign();
  return { keys, rows, expected };
}

/** The user-visible note fields of a discovery, by row index. */
export function noteFieldsOf(discoveries: readonly { index: number; stealthAddress: string; noteStatus: string; note: PaymentNote | null; stealthAddressMismatch: boolean }[]) {
  return new Map(discoveries.map((d) => [d.index, { noteStatus: d.noteStatus, note: d.note, stealthAddressMismatch: d.stealthAddressMismatch, stealthAddress: d.stealthAddress }]));
}
