/**
 * The channel table: what this instance knows about the private channels it opened.
 *
 * An announcement (PROTOCOL.md section 6) has no token field, and its `amount` is a label, so
 * the channel's token, amounts and lifecycle live here, keyed by channel id; channel discovery
 * joins discovered announcements with it (a channel unknown to this instance reports token null).
 * The table sits next to the announcement registry: in memory for `REGISTRY_URL=memory:`, in the
 * same SQLite / libSQL database for `file:` and `libsql:` (lib/channels/open.ts).
 *
 * Amounts are base units (`bigint`, lib/channels/amount.ts); `decimals` is the token's precision
 * when the channel was opened, so a later change of `YELLOW_TOKENS` cannot reinterpret them.
 * Fund and close only record what would happen: no transaction is ever submitted.
 */

export type ChannelStatus = 'open' | 'closed';

export type ChannelRecord = {
  /** 32 bytes. */
  channelId: Uint8Array;
  /** Token symbol as configured when the channel was opened. */
  token: string;
  decimals: number;
  /** Base units the channel was opened with. */
  amount: bigint;
  /** Base units added by fund calls since. */
  funded: bigint;
  status: ChannelStatus;
  /** Unix seconds. */
  createdAt: number;
  /** Unix seconds, when closed. */
  closedAt: number | null;
  /** The placeholder transaction id of the close, when closed. */
  closeTxId: string | null;
};

export type NewChannel = Pick<ChannelRecord, 'channelId' | 'token' | 'decimals' | 'amount' | 'createdAt'>;

/** What a close recorded, and whether the channel was already closed (the record is then unchanged). */
export type ClosedChannel = { record: ChannelRecord; alreadyClosed: boolean };

export interface ChannelStore {
  readonly kind: 'memory' | 'sqlite' | 'libsql';
  /** Record a new open channel. @throws {DuplicateChannelError} when the id exists. */
  create(channel: NewChannel): Promise<ChannelRecord>;
  get(channelId: Uint8Array): Promise<ChannelRecord | undefined>;
  /** Forget a channel whose announcement could not be published (undoes `create`). */
  remove(channelId: Uint8Array): Promise<void>;
  /**
   * Add `units` to an open channel's funded balance; undefined for an unknown id.
   * @throws {ChannelClosedError} when the channel is closed.
   */
  fund(channelId: Uint8Array, units: bigint): Promise<ChannelRecord | undefined>;
  /** Close an open channel; a closed one is returned unchanged. Undefined for an unknown id. */
  markClosed(channelId: Uint8Array, closing: { txId: string; at: number }): Promise<ClosedChannel | undefined>;
  close(): Promise<void>;
}

/** A channel with this id is already recorded. */
export class DuplicateChannelError extends Error {
  override name = 'DuplicateChannelError';
  constructor() {
    super('A channel with this id already exists.');
  }
}

/** The channel is closed: it cannot be funded. */
export class ChannelClosedError extends Error {
  override name = 'ChannelClosedError';
  constructor() {
    super('The channel is closed.');
  }
}
