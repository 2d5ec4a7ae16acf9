/**
 * Storage of the ENS gateway (issue 33): the names it serves, the meta-addresses they were
 * registered for, and one small row per one-time address it issued.
 *
 * An issued address is stored as (name, counter, meta-address id, address, requester key, times,
 * and once paid the paying chain and transaction), never as an announcement: the announcement is
 * rebuilt from the counter and the gateway secret when the address is paid (one-time-address.ts),
 * so lookups cost a ~100-byte row each and the registry grows only with payments.
 *
 * `issue` reserves the name's counter and stores the row in one write transaction before the
 * gateway answers, so a restart never hands a counter (hence an address) out twice, and the cap on
 * unpaid addresses holds under concurrent lookups. Implementations: memory (memory-store.ts) and
 * SQLite/libSQL (sqlite-store.ts) and PostgreSQL (postgres-store.ts), in the registry's database.
 */

/** How a name came to be served: a label under the parent name, or an owner's own ENS name. */
export type NameKind = 'label' | 'own';

/** A name as currently registered. */
export type NameRecord = {
  /** ENSIP-15 normalised. */
  name: string;
  kind: NameKind;
  /** Id of the meta-address row the name points at now. */
  metaId: number;
  /** Either form: 1218 bytes (scheme 1000) or 1250 bytes (ERC-8441, scheme 3). */
  metaAddress: Uint8Array;
  /** For own names: the owner whose signature registered it (lowercase); null for labels. */
  owner: string | null;
  /** Times the name was registered, changed or released: the next signature must name it (replay protection). */
  nonce: number;
};

/** One issued one-time address. */
export type IssuedAddress = {
  id: number;
  name: string;
  counter: number;
  metaId: number;
  /** EIP-55. */
  address: string;
  /** Unix seconds. */
  issuedAt: number;
  expiresAt: number;
  paidChainId: number | null;
  paidTxHash: string | null;
  announcementId: number | null;
};

/** What the gateway asks of `issue`. */
export type IssuePolicy = {
  name: string;
  /** Keyed hash of the requester's IP (never the IP itself). */
  requester: Uint8Array;
  now: number;
  /** The same requester within this many seconds gets its previous address back. */
  sameRequesterSeconds: number;
  addressTtlSeconds: number;
  /** Unpaid, unexpired addresses of the name at most; past it, the newest is handed out again. */
  maxUnpaid: number;
  /** False when the requester may not be issued a new address (its hourly budget is spent). */
  mayIssueNew: boolean;
  /** The one-time address of counter `counter` for the meta-address (deterministic; one-time-address.ts). */
  derive: (counter: number, metaAddress: Uint8Array) => string;
};

/** What `issue` answers: the address, and whether it was issued now or handed out again. */
export type IssueResult = { address: IssuedAddress; fresh: boolean } | { address: null; reason: 'unknown-name' | 'requester-limit' };

/** The next registration state: a meta-address (register or change) or null (release). */
export type NameChange = { kind: NameKind; metaAddress: Uint8Array; owner: string | null } | null;

export interface NameStore {
  /** The current registration of `name`, or null. */
  getName(name: string): Promise<NameRecord | null>;
  /** The nonce the next register/change/release of `name` must sign (0 for a name never registered). */
  nonceOf(name: string): Promise<number>;
  /**
   * Apply `change` when the name's nonce is still `expectedNonce`, and advance it. Returns the new
   * registration (null after a release).
   * @throws {NameNonceError} when another change came first (the signature is stale).
   */
  setName(name: string, expectedNonce: number, change: NameChange, now: number): Promise<NameRecord | null>;
  /** See {@link IssuePolicy}. */
  issue(policy: IssuePolicy): Promise<IssueResult>;
  /** The meta-address of a meta id (to rebuild a payment). */
  metaAddressOf(metaId: number): Promise<Uint8Array | null>;
  /**
   * Unpaid addresses whose expiry is after `expiredAfter`, oldest first: what the payment watcher
   * follows (it passes now minus the grace period, `ENS_GATEWAY_GRACE_S`, so an address paid late
   * is still published).
   */
  watched(expiredAfter: number): Promise<IssuedAddress[]>;
  /** Record the payment of an issued address and the announcement rebuilt for it. */
  markPaid(id: number, payment: { chainId: number; txHash: string; announcementId: number | null }): Promise<void>;
  /** Issued rows of a name (all, paid or not). */
  countIssued(name: string): Promise<number>;
  /** Where the watcher of chain `chainId` stands: the next block to read, or null. */
  watchCursor(chainId: number): Promise<number | null>;
  setWatchCursor(chainId: number, nextBlock: number): Promise<void>;
  close(): Promise<void>;
}

/** A register/change/release signed for an older nonce. */
export class NameNonceError extends Error {
  override name = 'NameNonceError';
  readonly code = 'STALE_NAME_SIGNATURE';
  constructor() {
    super('The name changed since this request was signed; sign again with its current nonce (GET /api/v1/names/:name).');
  }
}

/** True when `row` is unpaid and not expired at `now` (still handed out, and counted against the cap). */
export function isOpen(row: IssuedAddress, now: number): boolean {
  return row.paidTxHash === null && row.expiresAt > now;
}
