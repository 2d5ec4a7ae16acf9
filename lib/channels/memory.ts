/**
 * Process-local channel table (`REGISTRY_URL=memory:`): lost on restart, like the memory registry
 * it sits beside. Every method checks and updates without awaiting in between, so concurrent
 * creates of one id record exactly one and concurrent fundings all add up. Records are copied in
 * and out, as with a database.
 */
import { bytesToHex } from '@wraith-pq/sdk';
import { StoreUnavailableError } from '../registry/store.ts';
import {
  ChannelClosedError,
  DuplicateChannelError,
  type ChannelRecord,
  type ChannelStore,
  type ClosedChannel,
  type NewChannel,
} from './store.ts';

export function createMemoryChannelStore(): ChannelStore {
  return new MemoryChannelStore();
}

class MemoryChannelStore implements ChannelStore {
  readonly kind = 'memory' as const;
  readonly #channels = new Map<string, ChannelRecord>();
  #closed = false;

  async create(channel: NewChannel): Promise<ChannelRecord> {
    this.#checkOpen();
    const key = bytesToHex(channel.channelId);
    if (this.#channels.has(key)) throw new DuplicateChannelError();
    const record: ChannelRecord = { ...channel, channelId: channel.channelId.slice(), funded: 0n, status: 'open', closedAt: null, closeTxId: null };
    this.#channels.set(key, record);
    return copy(record);
  }

  async get(channelId: Uint8Array): Promise<ChannelRecord | undefined> {
    this.#checkOpen();
    const record = this.#channels.get(bytesToHex(channelId));
    return record === undefined ? undefined : copy(record);
  }

  async remove(channelId: Uint8Array): Promise<void> {
    this.#checkOpen();
    this.#channels.delete(bytesToHex(channelId));
  }

  async fund(channelId: Uint8Array, units: bigint): Promise<ChannelRecord | undefined> {
    this.#checkOpen();
    const record = this.#channels.get(bytesToHex(channelId));
    if (record === undefined) return undefined;
    if (record.status === 'closed') throw new ChannelClosedError();
    record.funded += units;
    return copy(record);
  }

  async markClosed(channelId: Uint8Array, closing: { txId: string; at: number }): Promise<ClosedChannel | undefined> {
    this.#checkOpen();
    const record = this.#channels.get(bytesToHex(channelId));
    if (record === undefined) return undefined;
    const alreadyClosed = record.status === 'closed';
    if (!alreadyClosed) Object.assign(record, { status: 'closed', closedAt: closing.at, closeTxId: closing.txId });
    return { record: copy(record), alreadyClosed };
  }

  async close(): Promise<void> {
    this.#closed = true;
  }

  #checkOpen(): void {
    if (this.#closed) throw new StoreUnavailableError('The memory channel table is closed.');
  }
}

function copy(record: ChannelRecord): ChannelRecord {
  return { ...record, channelId: record.channelId.slice() };
}
