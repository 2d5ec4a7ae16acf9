/**
 * A channel's life after create: GET /yellow/channel/:id/status, POST /yellow/channel/fund and
 * POST /yellow/channel/close.
 *
 * Settlement on the channel network is out of scope (INTERFACE.md 4.6): fund and close submit
 * nothing. They record what would happen in the channel table (the balance a funding would
 * result in, the channel being closed) and say so in the answer: `placeholder: true`, a message,
 * and a `placeholder:<action>:<uuid>` id that no chain could mistake for a transaction hash.
 *
 * Rules: an unknown channel is 404 NOT_FOUND for fund and close, but a status of `unknown` (200)
 * for status, which only reports what this instance knows. Funding a closed channel is 409
 * CHANNEL_CLOSED. Closing is idempotent: a second close answers the first close's result with
 * `already_closed: true`, so a client may retry a close whose answer it lost.
 */
import { bytesToHex } from '@wraith-pq/sdk';
import { HttpError, validationError } from '../http/errors.ts';
import type {
  ChannelStatusResponse,
  CloseChannelRequest,
  CloseChannelResponse,
  FundChannelRequest,
  FundChannelResponse,
} from '../schemas/channels.ts';
import { MAX_BASE_UNITS, formatTokenAmount } from './amount.ts';
import type { ChannelRecord, ChannelStore } from './store.ts';
import { amountInBaseUnits } from './tokens.ts';

export const PLACEHOLDER_MESSAGE =
  'Placeholder result: no transaction was submitted. Settlement on the channel network is not implemented by this service.';

/** What this instance knows about a channel; `unknown` when it has no record of it. */
export async function channelStatus(channels: ChannelStore, channelId: Uint8Array): Promise<ChannelStatusResponse> {
  const record = await channels.get(channelId);
  if (record === undefined) {
    return { channel_id: bytesToHex(channelId), status: 'unknown', token: null, amount: null, balance: null, created_at: null, closed_at: null };
  }
  return {
    channel_id: bytesToHex(channelId),
    status: record.status,
    token: record.token,
    amount: formatTokenAmount(record.amount, record.decimals),
    balance: formatTokenAmount(balanceOf(record), record.decimals),
    created_at: record.createdAt,
    closed_at: record.closedAt,
  };
}

/**
 * Record a placeholder funding of an open channel.
 * @throws {HttpError} 404 NOT_FOUND, 409 CHANNEL_CLOSED, 400 for an amount the token cannot carry.
 */
export async function fundChannel(channels: ChannelStore, request: FundChannelRequest): Promise<FundChannelResponse> {
  const current = await channels.get(request.channel_id);
  if (current === undefined) throw channelNotFound();
  if (current.status === 'closed') throw channelClosed();
  const units = amountInBaseUnits(request.amount, current.decimals);
  if (balanceOf(current) + units > MAX_BASE_UNITS) {
    throw validationError([{ path: 'amount', issue: 'would take the channel balance over 2^256 - 1 base units' }]);
  }
  let funded: ChannelRecord | undefined;
  try {
    funded = await channels.fund(request.channel_id, units);
  } catch (error) {
    if (error instanceof Error && error.name === 'ChannelClosedError') throw channelClosed(); // closed meanwhile
    throw error;
  }
  if (funded === undefined) throw channelNotFound();
  return {
    channel_id: bytesToHex(request.channel_id),
    placeholder: true,
    message: PLACEHOLDER_MESSAGE,
    tx_id: `placeholder:fund:${crypto.randomUUID()}`,
    status: 'open',
    token: funded.token,
    amount: formatTokenAmount(units, funded.decimals),
    balance: formatTokenAmount(balanceOf(funded), funded.decimals),
  };
}

/**
 * Close a channel (placeholder). Idempotent.
 * @throws {HttpError} 404 NOT_FOUND for an unknown channel.
 */
export async function closeChannel(channels: ChannelStore, request: CloseChannelRequest): Promise<CloseChannelResponse> {
  const closed = await channels.markClosed(request.channel_id, {
    txId: `placeholder:close:${crypto.randomUUID()}`,
    at: Math.floor(Date.now() / 1000),
  });
  if (closed === undefined) throw channelNotFound();
  const { record, alreadyClosed } = closed;
  return {
    channel_id: bytesToHex(request.channel_id),
    placeholder: true,
    message: PLACEHOLDER_MESSAGE,
    tx_id: record.closeTxId ?? '',
    status: 'closed',
    already_closed: alreadyClosed,
    token: record.token,
    final_balance: formatTokenAmount(balanceOf(record), record.decimals),
    closed_at: record.closedAt ?? 0,
  };
}

function balanceOf(record: ChannelRecord): bigint {
  return record.amount + record.funded;
}

function channelNotFound(): HttpError {
  return new HttpError(404, 'NOT_FOUND', 'There is no channel with this channel_id on this instance; open it with POST /api/v1/yellow/channel/create.');
}

function channelClosed(): HttpError {
  return new HttpError(409, 'CHANNEL_CLOSED', 'The channel is closed and cannot be funded.');
}
