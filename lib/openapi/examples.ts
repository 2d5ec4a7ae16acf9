/**
 * The request and response examples of the OpenAPI document, and the order to send them in.
 *
 * A generic client (a collection runner, Swagger's "Try it out") can only send what the document
 * shows, so every request example must succeed as written against a freshly started server with
 * the default configuration (empty registry, REGISTRY_PUBLISH=open, embedded IPFS store, default
 * YELLOW_* tokens): the examples chain. They share one recipient whose keys come from fixed seeds
 * with the SDK (PROTOCOL.md section 2), one payment to it made with a fixed encapsulation message
 * (section 4) and a fixed transaction hash, so "publish" stores a real payment that "scan" then
 * finds with the same keys. Everything is computed here from the seeds when the document is
 * built, so the examples cannot drift from the SDK.
 *
 * These keys are public (their secrets are in the document): examples only, never for funds.
 *
 * Operations that need a third party (ENS over ETH_RPC_URL, SuiNS over SUI_RPC_URL) get examples
 * whose answer does not depend on it: a malformed name, refused with 400 INVALID_NAME before any
 * upstream call. Each example states the status a fresh server answers; `EXAMPLE_SEQUENCE` is the
 * order (published as `x-example-sequence`), since later examples need what earlier ones stored.
 */
import {
  bytesToHex,
  cidForBytes,
  createStealthPayment,
  deriveStealthKeys,
  formatIpfsTextRecord,
  generateKeys,
  announcementMetadata,
  type StealthPayment,
} from '@wraith-pq/sdk';
import { YELLOW_DEFAULTS } from '../channels/config.ts';
import { PLACEHOLDER_MESSAGE } from '../channels/lifecycle.ts';
import { keyBundleJson } from '../service/key-bundle.ts';
import { createStealthPaymentJson } from '../service/stealth-payment.ts';

/** One example exchange: what to send and what a fresh server answers, in the document's order. */
export type ExampleCase = {
  /** Key of the example in the OpenAPI `examples` maps of the parameters, body and response. */
  name: string;
  summary: string;
  path?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
  /** The status a fresh server answers. */
  status: number;
  /** An example of the JSON answer (omitted for raw bytes). */
  response?: unknown;
};

/** Fixed seeds of the example recipient (any bytes make valid keys; these are easy to recognise). */
export const EXAMPLE_SEEDS = {
  spendingSecret: new Uint8Array(32).fill(0x11),
  viewingSeed: new Uint8Array(64).fill(0x22),
  /** FIPS 203 encapsulation message of the example payment (a real sender's is random). */
  paymentMessage: new Uint8Array(32).fill(0x33),
  /** The same for the one-time address of the example channel. */
  channelMessage: new Uint8Array(32).fill(0x44),
} as const;

/** Unix seconds shown in response examples (the server sets real timestamps). */
const EXAMPLE_TIME = 1_767_225_600; // 2026-01-01T00:00:00Z

export const EXAMPLE_KEYS = generateKeys({ spendingSecret: EXAMPLE_SEEDS.spendingSecret, viewingSeed: EXAMPLE_SEEDS.viewingSeed });
const keyBundle = keyBundleJson(EXAMPLE_KEYS);
const metaAddress = keyBundle.meta_address;

/** The note the example sender seals for the recipient: 0.001 ETH (the chain's coin) on Ethereum mainnet, naming its asset (PROTOCOL.md 8.1). */
const NOTE = { amount: '1000000000000000', chain_id: '1', token: 'coin' } as const;
const payment = createStealthPayment(EXAMPLE_KEYS.metaAddress, { message: EXAMPLE_SEEDS.paymentMessage });
const paymentMetadata = bytesToHex(announcementMetadata(payment, { amount: BigInt(NOTE.amount), chainId: BigInt(NOTE.chain_id), token: NOTE.token }));
/** The example payment's transaction hash (not a real transaction: REGISTRY_PUBLISH=open stores it as given). */
export const EXAMPLE_TX_HASH = `0x${'5e'.repeat(32)}`;
export const EXAMPLE_CHANNEL_ID = 'c4'.repeat(32);
const UNKNOWN_CHANNEL_ID = '0f'.repeat(32);
/** The token of the example channel: the default configuration's USDC (Circle's, on Sepolia). */
const CHANNEL_USDC = YELLOW_DEFAULTS.tokens.find((t) => t.symbol === 'USDC')!.address;
const channelPayment = createStealthPayment(EXAMPLE_KEYS.metaAddress, { message: EXAMPLE_SEEDS.channelMessage });
const cid = cidForBytes(EXAMPLE_KEYS.metaAddress).toString();

/** What the recipient's key pair derives for a payment: the one-time secret, as scans answer it. */
function oneTimeSecret(of: StealthPayment): string {
  return bytesToHex(deriveStealthKeys({ spendingSecretKey: EXAMPLE_KEYS.spendingSecretKey, sharedSecret: of.sharedSecret }).stealthSecretKey);
}

const error = (code: string, message: string, details?: { path: string; issue: string }[]) => ({
  error: { code, message, ...(details === undefined ? {} : { details }) },
});

const scanKeys = {
  viewing_sk: keyBundle.viewing_sk,
  spending_pk: keyBundle.spending_pk,
  spending_sk: keyBundle.spending_sk,
};

const publishedAnnouncement = {
  id: 1,
  scheme_id: 1000,
  ephemeral_key: bytesToHex(payment.ephemeralCiphertext),
  view_tag: payment.viewTag,
  timestamp: EXAMPLE_TIME,
  channel_id: null,
  tx_hash: EXAMPLE_TX_HASH,
  amount: '0.001',
  chain: 'ethereum',
  chain_id: null,
  stealth_address: null,
  metadata: paymentMetadata.slice(2), // the record keeps the sealed note after the view tag (PROTOCOL.md section 6)
  block_number: null,
  log_index: null,
};

const channelAnnouncement = {
  ...publishedAnnouncement,
  id: 2,
  ephemeral_key: bytesToHex(channelPayment.ephemeralCiphertext),
  view_tag: channelPayment.viewTag,
  channel_id: EXAMPLE_CHANNEL_ID,
  tx_hash: `channel:${EXAMPLE_CHANNEL_ID}`,
  amount: '25',
  chain: 'yellow',
  metadata: bytesToHex(announcementMetadata(channelPayment, { amount: 25_000_000n, chainId: 11_155_111n, token: CHANNEL_USDC }).subarray(1)),
};

const channelSecret = oneTimeSecret(channelPayment);

/** Both ENS operations refuse a name that is not <label>.eth the same way, before any RPC call. */
const notAnEthName: ExampleCase = {
  name: 'notAnEthName',
  summary: 'A name that is not <label>.eth is refused before any RPC call (a real name needs ETH_RPC_URL)',
  path: { name: 'alice.example' },
  status: 400,
  response: error('INVALID_NAME', 'The name is not a valid ENS name ending in .eth (ENSIP-15).', [{ path: 'name', issue: 'must be <label>.eth (labels not empty)' }]),
};

/** A fresh server runs no ENS gateway (ENS_GATEWAY_* unset): its operations answer 404. */
const gatewayOff = (summary: string, request: Pick<ExampleCase, 'path' | 'body'>): ExampleCase => ({
  name: 'gatewayOff',
  summary: `${summary} (a fresh server runs no ENS gateway: set ENS_GATEWAY_*)`,
  ...request,
  status: 404,
  response: error('NOT_FOUND', 'This deployment runs no ENS gateway (ENS_GATEWAY_* are not set).'),
});
/** The lookup a wallet sends for addr(namehash("alice.wraith.eth")) (resolve(bytes,bytes) callData). */
const EXAMPLE_LOOKUP =
  '0x9061b92300000000000000000000000000000000000000000000000000000000000000400000000000000000000000000000000000000000000000000000000000000080000000000000000000000000000000000000000000000000000000000000001205616c696365067772616974680365746800000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000243b3b57de6b7baac6b129c15e53539134e3bf92c033727b8294a342ad4572d96266f5433500000000000000000000000000000000000000000000000000000000';
const EXAMPLE_RESOLVER = '0x8464135c8f25da09e49bc8782676a84730c318bc';

/** Every operation's examples, by operationId. */
export const EXAMPLES: Readonly<Record<string, readonly ExampleCase[]>> = {
  health: [
    {
      name: 'alive',
      summary: 'Liveness and registry state',
      status: 200,
      response: {
        status: 'ok',
        version: '0.1.0',
        uptime_seconds: 42,
        announcements_count: 0,
        registry: { kind: 'sqlite', ok: true },
        chains: [],
        chain: null,
      },
    },
  ],
  openApiDocument: [{ name: 'document', summary: 'This document', status: 200 }],
  generateKeys: [
    {
      name: 'newKeys',
      summary: 'A fresh key bundle (the example shows the fixed example recipient; each call answers new random keys)',
      status: 200,
      response: keyBundle,
    },
  ],
  createStealthPayment: [
    {
      name: 'payExampleRecipient',
      summary: 'A one-time address for the example recipient, with a sealed note of what is paid',
      body: { meta_address: metaAddress, note: NOTE },
      status: 200,
      response: createStealthPaymentJson({ meta_address: metaAddress, scheme_id: undefined, channel_id: undefined, note: { tx_hash: undefined, amount: BigInt(NOTE.amount), chain_id: BigInt(NOTE.chain_id), token: NOTE.token } }, EXAMPLE_TIME, {
        message: EXAMPLE_SEEDS.paymentMessage,
      }),
    },
    {
      name: 'notAMetaAddress',
      summary: 'A meta-address that does not decode is refused',
      body: { meta_address: `st:eth:0x02${'00'.repeat(16)}` },
      status: 400,
      response: error('INVALID_META_ADDRESS', 'Invalid meta-address: expected 1218 bytes (Wraith) or 1250 (ERC-8441), got 17.', [
        { path: 'meta_address', issue: 'expected 1218 bytes (Wraith) or 1250 (ERC-8441), got 17' },
      ]),
    },
  ],
  publishAnnouncement: [
    {
      name: 'examplePayment',
      summary: 'Announce the example payment (the ciphertext and view tag stealth/create gave, with the paying transaction)',
      body: {
        ephemeral_key: publishedAnnouncement.ephemeral_key,
        view_tag: publishedAnnouncement.view_tag,
        tx_hash: EXAMPLE_TX_HASH,
        amount: '0.001',
        chain: 'ethereum',
        metadata: paymentMetadata,
      },
      status: 201,
      response: { id: 1, success: true },
    },
    {
      name: 'sameTransactionAgain',
      summary: 'The same transaction hash again is refused; nothing is stored',
      body: {
        ephemeral_key: publishedAnnouncement.ephemeral_key,
        view_tag: publishedAnnouncement.view_tag,
        tx_hash: EXAMPLE_TX_HASH,
      },
      status: 409,
      response: error('DUPLICATE_ANNOUNCEMENT', 'An announcement with this tx_hash is already in the registry; nothing was stored.'),
    },
  ],
  listAnnouncements: [
    {
      name: 'byViewTag',
      summary: 'The announcements with the example payment\'s view tag',
      query: { view_tag: String(payment.viewTag), limit: '10' },
      status: 200,
      response: { announcements: [publishedAnnouncement], total: 1 },
    },
  ],
  registryStats: [
    {
      name: 'counts',
      summary: 'Counts after the example payment was published',
      status: 200,
      response: { total_announcements: 1, view_tag_distribution: [{ tag: payment.viewTag, count: 1 }] },
    },
  ],
  scanRegistry: [
    {
      name: 'exampleRecipient',
      summary: 'The example recipient scans with its keys and finds the example payment, with its one-time secret',
      body: scanKeys,
      status: 200,
      response: {
        discoveries: [
          {
            scheme_id: 1000,
            stealth_address: payment.stealthAddress,
            stealth_sui_address: payment.stealthSuiAddress,
            announcement_id: 1,
            timestamp: EXAMPLE_TIME,
            channel_id: null,
            tx_hash: EXAMPLE_TX_HASH,
            amount: '0.001',
            chain: 'ethereum',
            chain_id: null,
            view_tag: payment.viewTag,
            stealth_address_announced: null,
            stealth_address_mismatch: false,
            note_status: 'opened',
            note: { tx_hash: null, amount: NOTE.amount, chain_id: NOTE.chain_id, token: NOTE.token },
            block_number: null,
            log_index: null,
            stealth_sk: oneTimeSecret(payment),
            eth_private_key: `0x${oneTimeSecret(payment)}`,
          },
        ],
        stats: { total_scanned: 1, view_tag_matches: 1, discoveries: 1, duration_ms: 3, rate: 333 },
      },
    },
  ],
  uploadMetaAddress: [
    {
      name: 'exampleMetaAddress',
      summary: 'Store the example meta-address (embedded store by default)',
      body: { meta_address: metaAddress, name: 'example recipient' },
      status: 200,
      response: { cid, text_record: formatIpfsTextRecord(cid) },
    },
  ],
  downloadCid: [
    {
      name: 'exampleMetaAddress',
      summary: 'The 1218 bytes of the example meta-address, verified against their CID',
      path: { cid },
      status: 200,
    },
    {
      name: 'notACid',
      summary: 'A path segment that is not a CID is refused',
      path: { cid: 'not-a-cid' },
      status: 400,
      response: error(
        'INVALID_CID',
        'Invalid CID: expected ipfs://<cid>, /ipfs/<cid> or a bare CID, with nothing after the CID. Use ipfs://<cid>, /ipfs/<cid> or a bare CID of a raw or dag-pb block hashed with sha2-256.',
        [{ path: 'cid', issue: 'expected ipfs://<cid>, /ipfs/<cid> or a bare CID, with nothing after the CID' }],
      ),
    },
  ],
  resolveEnsName: [notAnEthName],
  resolveSuinsName: [
    {
      name: 'notASuiName',
      summary: 'A name that is not <label>.sui is refused before any RPC call (a real name needs SUI_RPC_URL)',
      path: { name: 'alice.example' },
      status: 400,
      response: error('INVALID_NAME', 'The name is not a valid SuiNS name ending in .sui.', [
        { path: 'name', issue: 'must be <label>.sui: letters, digits and inner hyphens, labels of 1 to 63 characters' },
      ]),
    },
  ],
  resolveEnsAddress: [notAnEthName],
  ccipLookup: [gatewayOff('A wallet\'s CCIP-Read lookup of alice.wraith.eth', { path: { sender: EXAMPLE_RESOLVER, data: `${EXAMPLE_LOOKUP}.json` } })],
  ccipLookupPost: [gatewayOff('The same lookup, POST form', { body: { sender: EXAMPLE_RESOLVER, data: EXAMPLE_LOOKUP } })],
  nameGateway: [{ name: 'gatewayOff', summary: 'A fresh server runs no ENS gateway (set ENS_GATEWAY_*)', status: 200, response: { enabled: false, parent: null, resolver: null } }],
  showGatewayName: [gatewayOff('A name at the gateway', { path: { name: 'alice.wraith.eth' } })],
  changeGatewayName: [
    gatewayOff('Register alice.wraith.eth for the example meta-address (signed by its spending key)', {
      body: { action: 'register', name: 'alice.wraith.eth', meta_address: metaAddress, nonce: 0, signature: `0x${'ab'.repeat(65)}` },
    }),
  ],
  resolveErc6538Registration: [
    {
      name: 'chainNotFollowed',
      summary: 'A chain the server does not follow is refused (a fresh server follows none; set CHAINS or CHAIN_RPC_URL)',
      path: { address: '0x6538E6bf4B0eBd30A8Ea093027Ac2422ce5d6538' },
      query: { chain_id: '1', scheme_id: '3' },
      status: 422,
      response: error(
        'CHAIN_NOT_FOLLOWED',
        'This server does not follow the chain chain_id names, so it cannot read its registry (it follows no chain). Read the registry through your own RPC instead.',
        [{ path: 'chain_id', issue: 'is not a chain this server follows' }],
      ),
    },
    {
      name: 'notAnAddress',
      summary: 'A path segment that is not an EVM address is refused before any RPC call',
      path: { address: 'alice.eth' },
      status: 400,
      response: error('VALIDATION_ERROR', 'The request is invalid; see details.', [
        { path: 'address', issue: 'must be an EVM address: 0x and 40 hex digits, all one case or with a valid EIP-55 checksum' },
      ]),
    },
  ],
  listChains: [{ name: 'noneFollowed', summary: 'A server that follows no chain (a fresh one): no tokens, no gasless withdrawals', status: 200, response: { chains: [] } }],
  yellowConfig: [
    {
      name: 'defaults',
      summary: 'The default channel configuration',
      status: 200,
      response: {
        ws_url: YELLOW_DEFAULTS.wsUrl,
        custody_address: YELLOW_DEFAULTS.custodyAddress,
        adjudicator_address: YELLOW_DEFAULTS.adjudicatorAddress,
        chain_id: YELLOW_DEFAULTS.chainId,
        supported_tokens: YELLOW_DEFAULTS.tokens,
      },
    },
  ],
  createChannel: [
    {
      name: 'toExampleRecipient',
      summary: 'Open a 25 USDC channel to the example recipient\'s meta-address, with a fixed channel id',
      body: { recipient: metaAddress, token: 'USDC', amount: '25', channel_id: EXAMPLE_CHANNEL_ID },
      status: 201,
      response: {
        channel_id: EXAMPLE_CHANNEL_ID,
        stealth_address: channelPayment.stealthAddress,
        stealth_sui_address: channelPayment.stealthSuiAddress,
        token: 'USDC',
        amount: '25',
        announcement: channelAnnouncement,
      },
    },
  ],
  discoverChannels: [
    {
      name: 'exampleRecipient',
      summary: 'The example recipient finds the example channel, with the key that spends from its one-time address',
      body: scanKeys,
      status: 200,
      response: {
        channels: [
          {
            channel_id: EXAMPLE_CHANNEL_ID,
            stealth_address: channelPayment.stealthAddress,
            stealth_sui_address: channelPayment.stealthSuiAddress,
            eth_private_key: `0x${channelSecret}`,
            status: 'open',
            discovered_at: EXAMPLE_TIME + 60,
            announced_at: EXAMPLE_TIME,
            announcement_id: 2,
            amount: '25',
            token: 'USDC',
            note_status: 'opened',
            note: { tx_hash: null, amount: '25000000', chain_id: '11155111', token: CHANNEL_USDC },
          },
        ],
        stats: { total_scanned: 1, view_tag_matches: 1, discoveries: 1, duration_ms: 2 },
      },
    },
  ],
  channelStatus: [
    {
      name: 'exampleChannel',
      summary: 'The example channel, open',
      path: { id: EXAMPLE_CHANNEL_ID },
      status: 200,
      response: {
        channel_id: EXAMPLE_CHANNEL_ID,
        status: 'open',
        token: 'USDC',
        amount: '25',
        balance: '25',
        created_at: EXAMPLE_TIME,
        closed_at: null,
      },
    },
    {
      name: 'unknownChannel',
      summary: 'A well-formed id this instance has no channel for',
      path: { id: UNKNOWN_CHANNEL_ID },
      status: 200,
      response: {
        channel_id: UNKNOWN_CHANNEL_ID,
        status: 'unknown',
        token: null,
        amount: null,
        balance: null,
        created_at: null,
        closed_at: null,
      },
    },
  ],
  fundChannel: [
    {
      name: 'exampleChannel',
      summary: 'Add 5 USDC to the example channel (placeholder: nothing is submitted)',
      body: { channel_id: EXAMPLE_CHANNEL_ID, amount: '5' },
      status: 200,
      response: {
        channel_id: EXAMPLE_CHANNEL_ID,
        placeholder: true,
        message: PLACEHOLDER_MESSAGE,
        tx_id: 'placeholder:fund:2f1c6a55-8a3e-4f43-9a59-0d5d1c1f8e21',
        status: 'open',
        token: 'USDC',
        amount: '5',
        balance: '30',
      },
    },
    {
      name: 'afterClose',
      summary: 'Funding the example channel after it was closed is refused',
      body: { channel_id: EXAMPLE_CHANNEL_ID, amount: '5' },
      status: 409,
      response: error('CHANNEL_CLOSED', 'The channel is closed and cannot be funded.'),
    },
  ],
  closeChannel: [
    {
      name: 'exampleChannel',
      summary: 'Close the example channel (placeholder: nothing is submitted)',
      body: { channel_id: EXAMPLE_CHANNEL_ID },
      status: 200,
      response: {
        channel_id: EXAMPLE_CHANNEL_ID,
        placeholder: true,
        message: PLACEHOLDER_MESSAGE,
        tx_id: 'placeholder:close:8d0f3b7e-1c2a-4b5d-9e6f-7a8b9c0d1e2f',
        status: 'closed',
        already_closed: false,
        token: 'USDC',
        final_balance: '30',
        closed_at: EXAMPLE_TIME + 120,
      },
    },
  ],
};

/**
 * The order to send the examples in against a fresh server: each one relies only on those
 * before it (publish before list, stats and scan; create a channel before its status, fund and
 * close; close before the refused fund).
 */
export const EXAMPLE_SEQUENCE: readonly { operationId: string; example: string }[] = [
  ['health', 'alive'],
  ['openApiDocument', 'document'],
  ['listChains', 'noneFollowed'],
  ['generateKeys', 'newKeys'],
  ['createStealthPayment', 'payExampleRecipient'],
  ['createStealthPayment', 'notAMetaAddress'],
  ['publishAnnouncement', 'examplePayment'],
  ['publishAnnouncement', 'sameTransactionAgain'],
  ['listAnnouncements', 'byViewTag'],
  ['registryStats', 'counts'],
  ['scanRegistry', 'exampleRecipient'],
  ['uploadMetaAddress', 'exampleMetaAddress'],
  ['downloadCid', 'exampleMetaAddress'],
  ['downloadCid', 'notACid'],
  ['resolveEnsName', 'notAnEthName'],
  ['resolveSuinsName', 'notASuiName'],
  ['resolveEnsAddress', 'notAnEthName'],
  ['resolveErc6538Registration', 'chainNotFollowed'],
  ['resolveErc6538Registration', 'notAnAddress'],
  ['ccipLookup', 'gatewayOff'],
  ['ccipLookupPost', 'gatewayOff'],
  ['nameGateway', 'gatewayOff'],
  ['showGatewayName', 'gatewayOff'],
  ['changeGatewayName', 'gatewayOff'],
  ['yellowConfig', 'defaults'],
  ['createChannel', 'toExampleRecipient'],
  ['discoverChannels', 'exampleRecipient'],
  ['channelStatus', 'exampleChannel'],
  ['channelStatus', 'unknownChannel'],
  ['fundChannel', 'exampleChannel'],
  ['closeChannel', 'exampleChannel'],
  ['fundChannel', 'afterClose'],
].map(([operationId, example]) => ({ operationId: operationId!, example: example! }));
