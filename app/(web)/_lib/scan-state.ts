/**
 * What a scan leaves behind in this browser, per key: the resume cursor (the id of the last
 * announcement scanned, as `scanRegistry` reports it) and the payments found so far: addresses,
 * announcement fields (the ciphertext among them) and the opened notes, never a key. A payment's
 * spending key is derived again from the saved announcement when the user asks for it.
 * @module
 */

/**
 * The note the sender sealed for the recipient (PROTOCOL.md section 8), opened by the scan:
 * amounts as decimal strings of base units (JSON has no bigint). `asset`: what a version-1 note
 * names (8.1), `native` for the chain's coin or the token's address; absent for a note that names
 * none (version 0, and scans saved before).
 */
export type SavedNote = { amount: string | null; txHash: string | null; chainId: string | null; asset?: string };

/** A payment found by a scan (public fields only). */
export type SavedDiscovery = {
  /** Registry id of the announcement. */
  id: number;
  stealthAddress: string;
  stealthSuiAddress: string;
  amount: string | null;
  chain: string | null;
  /**
   * EIP-155 id of the chain that holds the payment: the registry row's `chain_id` (the chain the
   * announcement was read from), else the opened note's chain id; null when neither says (absent
   * in scans saved before; see {@link chainIdOf}).
   */
  chainId?: number | null;
  txHash: string | null;
  /** Unix seconds of the announcement. */
  timestamp: number;
  /**
   * The announcement's ciphertext (hex) and view tag: public, kept so the spending key can be
   * derived again here without asking the server for anything (absent in scans saved before).
   */
  ephemeralKey?: string;
  viewTag?: number;
  /** The opened note; null when the announcement had none or it did not open (absent in scans saved before notes). */
  note?: SavedNote | null;
};

/** The chain of a saved payment: its `chainId`, or for scans saved before it, the note's. */
export function chainIdOf(discovery: SavedDiscovery): number | null {
  if (discovery.chainId !== undefined && discovery.chainId !== null) return discovery.chainId;
  const fromNote = discovery.note?.chainId ? Number(discovery.note.chainId) : NaN;
  return Number.isSafeInteger(fromNote) && fromNote > 0 ? fromNote : null;
}

export type SavedScan = {
  /** Resume after this announcement id (0: from the start). */
  cursor: number;
  /** Announcements scanned up to the cursor. */
  scanned: number;
  discoveries: SavedDiscovery[];
};

const EMPTY: SavedScan = { cursor: 0, scanned: 0, discoveries: [] };

const storageKey = (spendingPublicKeyHex: string) => `wraith.scan.v1.${spendingPublicKeyHex}`;

export function loadScan(spendingPublicKeyHex: string): SavedScan {
  try {
    const text = window.localStorage.getItem(storageKey(spendingPublicKeyHex));
    if (!text) return EMPTY;
    const saved = JSON.parse(text) as SavedScan;
    if (!Number.isSafeInteger(saved.cursor) || !Number.isSafeInteger(saved.scanned) || !Array.isArray(saved.discoveries)) return EMPTY;
    return saved;
  } catch {
    return EMPTY;
  }
}

export function saveScan(spendingPublicKeyHex: string, scan: SavedScan): void {
  try {
    window.localStorage.setItem(storageKey(spendingPublicKeyHex), JSON.stringify(scan));
  } catch {
    // storage full or disabled: the scan still works, it just cannot resume after a reload
  }
}

export function clearScan(spendingPublicKeyHex: string): void {
  window.localStorage.removeItem(storageKey(spendingPublicKeyHex));
}
