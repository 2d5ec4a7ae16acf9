/**
 * POST /api/v1/yellow/channel/create: open a private channel to a recipient's one-time address.
 *
 * A stealth payment to the recipient's meta-address (PROTOCOL.md section 4) gives the channel's
 * one-time address; its announcement is published at once, carrying the channel id,
 * `chain: "yellow"`, the amount, a sealed note of the amount in base units and the channel
 * contracts' chain id (PROTOCOL.md section 8) and `tx_hash: "channel:<channel id>"`. The registry's unique
 * tx_hash therefore announces each channel once: a repeated id is 409 DUPLICATE_ANNOUNCEMENT.
 *
 * Order: the request is checked (token, amount) before a name is resolved, so a bad request
 * costs no name-service lookup; the channel is recorded in the channel table before it is
 * announced, so two creates racing on one id cannot both announce, and the record is removed
 * again if the announcement fails, so the table never holds a channel nobody can discover.
 */
import { bytesToHex, createStealthPayment, sealNote } from '@wraith-pq/sdk';
import { HttpError } from '../http/errors.ts';
import type { RegistryStore } from '../registry/store.ts';
import type { CreateChannelRequest, CreateChannelResponse } from '../schemas/channels.ts';
import { announcementToJson } from '../service/announcement-json.ts';
import { formatTokenAmount } from './amount.ts';
import type { YellowConfig } from './config.ts';
import { recipientMetaAddress } from './recipient.ts';
import type { ChannelStore } from './store.ts';
import { amountInBaseUnits, findToken } from './tokens.ts';

/** The `chain` of channel announcements. */
export const CHANNEL_CHAIN = 'yellow';
export const CHANNEL_ID_BYTES = 32;

/** The tx_hash a channel is announced under: one announcement per channel id. */
export function channelTxHash(channelId: Uint8Array): string {
  return `channel:${bytesToHex(channelId)}`;
}

export type CreateChannelDependencies = {
  registry: RegistryStore;
  channels: ChannelStore;
  config: YellowConfig;
};

/**
 * Open and announce a channel.
 * @throws {HttpError} 400 for an unsupported token or bad amount, 409 DUPLICATE_ANNOUNCEMENT for
 * a channel id already opened; recipient errors as {@link recipientMetaAddress} raises them.
 */
export async function createChannel(request: CreateChannelRequest, { registry, channels, config }: CreateChannelDependencies): Promise<CreateChannelResponse> {
  const token = findToken(config.tokens, request.token);
  const units = amountInBaseUnits(request.amount, token.decimals);
  const amount = formatTokenAmount(units, token.decimals);
  const metaAddress = await recipientMetaAddress(request.recipient);
  const channelId = request.channel_id ?? crypto.getRandomValues(new Uint8Array(CHANNEL_ID_BYTES));
  // Channels are found by scheme-1000 scans (lib/channels/discover.ts): a 1250-byte recipient holds its keys too.
  const payment = createStealthPayment(metaAddress, { schemeId: 1000 });

  try {
    await channels.create({ channelId, token: token.symbol, decimals: token.decimals, amount: units, createdAt: Math.floor(Date.now() / 1000) });
  } catch (error) {
    if (error instanceof Error && error.name === 'DuplicateChannelError') throw duplicateChannel(error);
    throw error;
  }
  let announcement;
  try {
    announcement = await registry.publish({
      ephemeralKey: payment.ephemeralCiphertext,
      viewTag: payment.viewTag,
      txHash: channelTxHash(channelId),
      channelId,
      amount,
      chain: CHANNEL_CHAIN,
      // The amount, token and chain sealed for the recipient too (PROTOCOL.md section 8.1; the zero
      // address is the native asset, as the note has it): the plaintext amount stays for the
      // interface, the note is what the recipient can trust came with the key.
      metadata: sealNote(payment.sharedSecret, { amount: units, chainId: config.chainId, token: token.address }),
    });
  } catch (error) {
    await channels.remove(channelId).catch(() => undefined); // best effort; the publish error is what the client needs
    if (error instanceof Error && error.name === 'DuplicateAnnouncementError') throw duplicateChannel(error);
    throw error;
  }
  return {
    channel_id: bytesToHex(channelId),
    stealth_address: payment.stealthAddress,
    stealth_sui_address: payment.stealthSuiAddress,
    token: token.symbol,
    amount,
    announcement: announcementToJson(announcement),
  };
}

function duplicateChannel(cause: unknown): HttpError {
  return new HttpError(409, 'DUPLICATE_ANNOUNCEMENT', 'A channel with this channel_id has already been announced; choose another id or omit it.', {
    cause,
  });
}
