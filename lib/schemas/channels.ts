/**
 * Private channels under /api/v1/yellow (INTERFACE.md 4.6): create, discover, status, fund,
 * close and config. The channel network's settlement is out of scope: fund and close answer
 * placeholders that say so (`placeholder: true`) and submit nothing.
 *
 * Token-dependent rules (the token must be configured, the amount may not have more decimal
 * places than the token) are checked by lib/channels against `YELLOW_TOKENS`; these schemas
 * check the shape.
 */
import { z } from 'zod';
import { DECIMAL_AMOUNT, MAX_AMOUNT_LENGTH } from '../channels/amount.ts';
import { announcementJson } from './announcement.ts';
import { evmAddressOutput, hexBytes, hexOutput, optional, prefixedHash32Output, scanMode, suiAddressOutput } from './fields.ts';
import { openedNoteJson } from './stealth.ts';

/**
 * Longest recipient: room for a meta-address URI (`st:<chain>:0x` + 2436 hex digits) and for a
 * legacy version-1 meta-address (4738 hex digits), which is recognised and refused with its own
 * error; names are far shorter.
 */
export const MAX_RECIPIENT_LENGTH = 8192;
/** Longest token symbol (lib/channels/config.ts allows 16). */
export const MAX_TOKEN_SYMBOL_LENGTH = 16;

const channelId = (description: string) => hexBytes(32, description);

/** A positive decimal amount in the token's units (`"12.5"`); decimals are checked per token. */
const tokenAmount = z
  .string()
  .trim()
  .max(MAX_AMOUNT_LENGTH)
  .regex(DECIMAL_AMOUNT, { message: 'must be a positive decimal number such as 12.5 (no sign, exponent or separators)', abort: true })
  .refine((text) => /[1-9]/.test(text), 'must be greater than zero')
  .describe('Amount in token units as a decimal string, e.g. "12.5"; at most as many decimal places as the token has');

export const createChannelRequest = z
  .object({
    recipient: z
      .string()
      .trim()
      .min(1)
      .max(MAX_RECIPIENT_LENGTH)
      .describe('A .eth or .sui name publishing a meta-address, or a meta-address (hex, or st:<chain>:0x<hex>)'),
    token: z.string().trim().min(1).max(MAX_TOKEN_SYMBOL_LENGTH).describe('Token symbol, one of GET /yellow/config supported_tokens (any case)'),
    amount: tokenAmount,
    channel_id: optional(channelId('32-byte channel id; default: 32 random bytes. Each id can be opened once')),
  })
  .describe('CreateChannelRequest');

export type CreateChannelRequest = z.output<typeof createChannelRequest>;

export const createChannelResponse = z
  .object({
    channel_id: hexOutput(32, '32-byte channel id'),
    stealth_address: evmAddressOutput('EIP-55 one-time EVM address of the recipient for this channel'),
    stealth_sui_address: suiAddressOutput('Sui address of the same one-time key'),
    token: z.string().describe('Token symbol as configured'),
    amount: z.string().describe('Amount, normalised (no leading zeros or trailing fractional zeros)'),
    announcement: announcementJson.describe('The published announcement, with its registry id; tx_hash is channel:<channel_id>'),
  })
  .describe('CreateChannelResponse');

export type CreateChannelResponse = z.output<typeof createChannelResponse>;

export const discoverChannelsRequest = z
  .object({
    viewing_sk: hexBytes(2400, 'Viewing secret key: ML-KEM-768 decapsulation key (2400 bytes)'),
    spending_pk: hexBytes(33, 'Spending public key: secp256k1, compressed (33 bytes)'),
    spending_sk: hexBytes(32, 'Spending secret (32 bytes): the discovered channels carry their spending keys'),
    mode: optional(scanMode),
  })
  .describe('DiscoverChannelsRequest');

export type DiscoverChannelsRequest = z.output<typeof discoverChannelsRequest>;

export const channelStatus = z.enum(['open', 'closed']).describe('open, or closed after POST /yellow/channel/close');

export const discoveredChannelJson = z
  .object({
    channel_id: hexOutput(32, '32-byte channel id'),
    stealth_address: evmAddressOutput('EIP-55 one-time EVM address (equals create stealth_address)'),
    stealth_sui_address: suiAddressOutput('Sui address of the same one-time key'),
    eth_private_key: prefixedHash32Output('0x + one-time secret key. Secret: spends from the stealth address'),
    status: channelStatus.describe('closed when this instance recorded a close; otherwise open (announced channels start open)'),
    discovered_at: z.int().describe('Unix seconds of this discovery'),
    announced_at: z.int().describe('Unix seconds the channel was announced'),
    announcement_id: z.int().describe('Registry id of the channel announcement'),
    amount: z.string().nullable().describe('Amount announced at creation'),
    token: z.string().nullable().describe('Token symbol; null when the channel was opened through another instance'),
    note_status: z.enum(['absent', 'opened', 'unreadable']).describe('Whether the announcement carried a sealed note, and whether it opened'),
    note: openedNoteJson.nullable().describe('The opened note (amount in base units, chain id of the channel contracts), or null'),
  })
  .describe('DiscoveredChannel');

export type DiscoveredChannelJson = z.output<typeof discoveredChannelJson>;

export const discoverChannelsResponse = z
  .object({
    channels: z.array(discoveredChannelJson).describe('Channels opened to this key, in announcement order'),
    stats: z
      .object({
        total_scanned: z.int().describe('Channel announcements scanned'),
        view_tag_matches: z.int(),
        discoveries: z.int(),
        duration_ms: z.int(),
      })
      .describe('ChannelScanStats'),
  })
  .describe('DiscoverChannelsResponse');

export type DiscoverChannelsResponse = z.output<typeof discoverChannelsResponse>;

/** The `:id` of GET /yellow/channel/:id/status. */
export const channelIdPath = z.object({ id: channelId('32-byte channel id') }).describe('ChannelIdPath');

export const channelStatusResponse = z
  .object({
    channel_id: hexOutput(32, '32-byte channel id'),
    status: z.enum(['open', 'closed', 'unknown']).describe('unknown: this instance has no channel with this id'),
    token: z.string().nullable(),
    amount: z.string().nullable().describe('Amount the channel was opened with; null when unknown'),
    balance: z.string().nullable().describe('Amount plus placeholder fundings; null when unknown'),
    created_at: z.int().nullable().describe('Unix seconds; null when unknown'),
    closed_at: z.int().nullable().describe('Unix seconds; null unless closed'),
  })
  .describe('ChannelStatus');

export type ChannelStatusResponse = z.output<typeof channelStatusResponse>;

export const fundChannelRequest = z
  .object({
    channel_id: channelId('32-byte channel id of an open channel'),
    amount: tokenAmount,
  })
  .describe('FundChannelRequest');

export type FundChannelRequest = z.output<typeof fundChannelRequest>;

const placeholderFields = {
  placeholder: z.literal(true).describe('Always true: nothing was submitted to any chain or channel network'),
  message: z.string().describe('Says that this is a placeholder result'),
};

export const fundChannelResponse = z
  .object({
    channel_id: hexOutput(32, '32-byte channel id'),
    ...placeholderFields,
    tx_id: z.string().describe('placeholder:fund:<uuid>, not a transaction hash'),
    status: z.literal('open'),
    token: z.string(),
    amount: z.string().describe('Amount of this funding'),
    balance: z.string().describe('Channel balance this funding would result in'),
  })
  .describe('FundChannelResponse');

export type FundChannelResponse = z.output<typeof fundChannelResponse>;

export const closeChannelRequest = z
  .object({ channel_id: channelId('32-byte channel id') })
  .describe('CloseChannelRequest');

export type CloseChannelRequest = z.output<typeof closeChannelRequest>;

export const closeChannelResponse = z
  .object({
    channel_id: hexOutput(32, '32-byte channel id'),
    ...placeholderFields,
    tx_id: z.string().describe('placeholder:close:<uuid>, not a transaction hash; the same on every close of the channel'),
    status: z.literal('closed'),
    already_closed: z.boolean().describe('True when an earlier call closed it; nothing changed'),
    token: z.string(),
    final_balance: z.string().describe('Balance that would be settled to the recipient'),
    closed_at: z.int().describe('Unix seconds of the (first) close'),
  })
  .describe('CloseChannelResponse');

export type CloseChannelResponse = z.output<typeof closeChannelResponse>;

export const yellowConfigResponse = z
  .object({
    ws_url: z.string().describe('ClearNode WebSocket endpoint'),
    custody_address: evmAddressOutput('EIP-55 custody contract address'),
    adjudicator_address: evmAddressOutput('EIP-55 adjudicator contract address'),
    chain_id: z.int().describe('EIP-155 chain id of the contracts'),
    supported_tokens: z
      .array(
        z.object({
          symbol: z.string(),
          address: evmAddressOutput('EIP-55 token address; the zero address is the native asset'),
          decimals: z.int(),
        }),
      )
      .describe('Tokens channels can be opened in'),
  })
  .describe('YellowConfig');

export type YellowConfigResponse = z.output<typeof yellowConfigResponse>;
