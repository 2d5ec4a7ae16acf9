/**
 * The JSON the HTTP API speaks (INTERFACE.md section 4, API.md), as TypeScript types: snake_case
 * fields, byte strings as lowercase hex without `0x`. Request types accept a `Uint8Array`
 * wherever the API takes hex ({@link HexInput}): the client encodes it.
 *
 * These types mirror the server's zod schemas (lib/schemas/*.ts); tests/client/types.test.ts
 * fails the type check when the two drift apart.
 * @module
 */

/** Hex text (`0x` optional on input) or the bytes themselves. */
export type HexInput = string | Uint8Array;

/** One problem with one input field, as the server reports it. */
export type ErrorDetailJson = { path: string; issue: string };

/** The error body of every failed request (API.md "Errors"). */
export type ErrorJson = { error: { code: string; message: string; details?: ErrorDetailJson[] } };

// --- health -------------------------------------------------------------------------------

/** GET /health. A `degraded` instance answers 503 with this body. */
export type HealthJson = {
  status: 'ok' | 'degraded';
  version: string;
  uptime_seconds: number;
  /** `null` when the registry is unreachable. */
  announcements_count: number | null;
  registry: { kind: 'memory' | 'sqlite' | 'postgres' | 'libsql'; ok: boolean };
  /** Every followed chain (`CHAINS` or `CHAIN_RPC_URL`); empty when none is or the registry is unreachable. */
  chains: {
    name: string;
    /** EIP-155 id its RPC answered; null until it answered. */
    chain_id: number | null;
    indexed_block: number | null;
    head_block: number | null;
    lag_blocks: number | null;
    /** This instance holds the chain's indexer lease. */
    indexing: boolean;
    /** The RPC's current failure (status is then `degraded`, HTTP 200); null while it works. */
    error: string | null;
  }[];
  /** Deprecated (read `chains`): its first entry without `chain_id`; null when no chain is followed. */
  chain: {
    name: string;
    /** Last block whose announcements are in the registry. */
    indexed_block: number | null;
    head_block: number | null;
    lag_blocks: number | null;
    /** This instance holds the indexer lease. */
    indexing: boolean;
    ok: boolean;
    error: string | null;
  } | null;
};

/** GET /api/v1/openapi.json: the OpenAPI 3.1 description of the server's API. */
export type OpenApiDocumentJson = {
  openapi: string;
  info: { title: string; version: string; [field: string]: unknown };
  /** Path → method (lower case) → operation. */
  paths: Record<string, Record<string, unknown>>;
  [field: string]: unknown;
};

// --- keys ---------------------------------------------------------------------------------

/** POST /api/v1/keys/generate. The two `_sk` fields are secrets. */
export type KeyBundleJson = {
  /** secp256k1, compressed (33 bytes). */
  spending_pk: string;
  /** 32 bytes. Secret: spends every payment. */
  spending_sk: string;
  /** ML-KEM-768 encapsulation key (1184 bytes). */
  viewing_pk: string;
  /** ML-KEM-768 decapsulation key (2400 bytes). Secret: finds every payment. */
  viewing_sk: string;
  /** `0x02 || B || ek` (1218 bytes): what the recipient publishes. */
  meta_address: string;
  /** Informational base view tag of the viewing key. */
  view_tag: number;
  /** ERC-8441 tracking key (96 bytes): finds scheme-3 payments, cannot spend them. Secret. */
  tracking_key: string;
  /** ERC-8441 meta-address of the same identity (1250 bytes). */
  erc8441_meta_address: string;
};

// --- announcements ------------------------------------------------------------------------

/** An announcement row as the registry lists it (PROTOCOL.md section 6). */
export type AnnouncementJson = {
  /** Registry id; 0 in a stealth/create response (not yet published). */
  id: number;
  /** ERC-5564 scheme: 1000 (Wraith) or 3 (ERC-8441). */
  scheme_id: 1000 | 3;
  /** Scheme 1000: the ML-KEM-768 ciphertext (1088 bytes). Scheme 3: epk || ct (1121 bytes). */
  ephemeral_key: string;
  view_tag: number;
  /** Unix seconds, set by the server. */
  timestamp: number;
  channel_id: string | null;
  tx_hash: string | null;
  amount: string | null;
  chain: string | null;
  /** The one-time address the announcement names (EIP-55): chain events and scheme-3 publishes. */
  stealth_address: string | null;
  /** Hex of what follows the view tag: the sealed note (PROTOCOL.md section 8: 92 bytes, or 112 naming its asset, 8.1) for scheme 1000, any bytes for scheme 3; or null. */
  metadata: string | null;
  /** Chain events: block and log index; null for HTTP publishes. */
  block_number: number | null;
  log_index: number | null;
  /**
   * EIP-155 id of the chain the row belongs to (its event's chain, or the one its HTTP publisher
   * named), or null. Servers older than this field leave it out.
   */
  chain_id: number | null;
};

/**
 * A sealed note opened by the server's scan: decimal strings, null for absent fields. `token` is
 * the asset the sender names (PROTOCOL.md 8.1): `'coin'`, a token's EIP-55 address, or null when
 * the note does not say (version 0). Servers older than it leave it out.
 */
export type OpenedNoteJson = { tx_hash: string | null; amount: string | null; chain_id: string | null; token: string | null };

// --- stealth ------------------------------------------------------------------------------

export type CreateStealthPaymentParameters = {
  /** Recipient meta-address of either form (1218 bytes: scheme 1000; 1250 bytes: ERC-8441, scheme 3): hex or `st:<chain>:0x<hex>`. */
  meta_address: HexInput;
  /** Pay a 1250-byte recipient with scheme 1000 instead of 3. */
  scheme_id?: 1000 | 3;
  /** Accepted by the API for compatibility and ignored. */
  channel_id?: string | null;
  /**
   * A note sealed for the recipient into the returned `metadata` (PROTOCOL.md section 8). With
   * `token` (`'coin'` or the token contract's address) it is the note that names its asset (8.1).
   */
  note?: { tx_hash?: HexInput | null; amount?: string | number | null; chain_id?: string | number | null; token?: 'coin' | HexInput | null } | null;
};

export type CreateStealthPaymentReturnType = {
  /** The scheme the payment uses: announce it under this id. */
  scheme_id: 1000 | 3;
  /** EIP-55 EVM address to pay. */
  stealth_address: string;
  /** Sui address of the same one-time key. */
  stealth_sui_address: string;
  /** Publish it as `ephemeral_key` (1088 bytes under scheme 1000, `epk || ct` of 1121 bytes under scheme 3). */
  ephemeral_ciphertext: string;
  /** Publish it as `view_tag`. */
  view_tag: number;
  /**
   * The announcement to publish (id 0: nothing is published by this call), as it is once the
   * payment's hash is known: `client.publishAnnouncement({ ...created.announcement, tx_hash })`.
   * Its `stealth_address` is null under scheme 1000 (the registry takes it from the chain).
   */
  announcement: AnnouncementJson;
  /** ERC-5564 metadata to announce on chain: view tag + sealed note (113 bytes with a `note.token`, else 93; hex). */
  metadata: string;
};

export type ScanParameters = {
  /** Scheme 1000: 2400 bytes, with `spending_pk`. Secret. */
  viewing_sk?: HexInput | null;
  /** Scheme 1000: 33 bytes, with `viewing_sk`. */
  spending_pk?: HexInput | null;
  /** Scheme 3 (ERC-8441): the 96-byte tracking key, with `meta_address`. Finds payments, cannot spend them. */
  tracking_key?: HexInput | null;
  /** Scheme 3: the recipient's 1250-byte meta-address the tracking key belongs to. */
  meta_address?: HexInput | null;
  /** 32 bytes, either scheme. Without it the scan is view-only: scheme-1000 discoveries carry `shared_secret`, scheme-3 ones no secret. */
  spending_sk?: HexInput | null;
  /** Only announcements with these view tags (empty: no filter). */
  view_tags?: number[] | null;
  /** Window start (Unix seconds); used only together with `to_timestamp`. */
  from_timestamp?: number | null;
  to_timestamp?: number | null;
};

/** A payment found by a server-side scan. */
export type DiscoveryJson = {
  /** The scheme it was found under: 1000 or 3 (ERC-8441). */
  scheme_id: 1000 | 3;
  stealth_address: string;
  stealth_sui_address: string;
  announcement_id: number;
  timestamp: number;
  channel_id: string | null;
  tx_hash: string | null;
  amount: string | null;
  chain: string | null;
  /** EIP-155 id of the announcement's chain, or null. */
  chain_id: number | null;
  view_tag: number;
  /** One-time secret `p` (32 bytes). Secret: spends the payment. */
  stealth_sk?: string | undefined;
  /** `0x` + `p`, the form EVM wallets import. Secret. */
  eth_private_key?: string | undefined;
  /** View-only scans of scheme 1000: the shared secret `K` (32 bytes). Never for scheme 3. */
  shared_secret?: string | undefined;
  /** The stealth address the announcement named (chain events), or null. */
  stealth_address_announced: string | null;
  /** True when the announced stealth address differs from the derived one. */
  stealth_address_mismatch: boolean;
  note_status: 'absent' | 'opened' | 'unreadable';
  note: OpenedNoteJson | null;
  block_number: number | null;
  log_index: number | null;
};

export type ScanStatsJson = {
  total_scanned: number;
  view_tag_matches: number;
  discoveries: number;
  duration_ms: number;
  rate: number;
};

export type ScanReturnType = { discoveries: DiscoveryJson[]; stats: ScanStatsJson };

// --- registry -----------------------------------------------------------------------------

export type PublishAnnouncementParameters = {
  /** The ciphertext from stealth/create (1088 bytes, scheme 1000) or `epk || ct` (1121 bytes, scheme 3). */
  ephemeral_key: HexInput;
  /** 1000 (Wraith) or 3 (ERC-8441); the server infers it from the `ephemeral_key` length when absent. */
  scheme_id?: 1000 | 3;
  view_tag: number;
  /** Transaction hash of the payment; unique in the registry (trimmed, case-insensitive). */
  tx_hash: string;
  /** 32 bytes. */
  channel_id?: HexInput | null;
  amount?: string | null;
  chain?: string | null;
  /** EIP-155 id of the chain the payment is on (a `verified` registry checks the transaction there). */
  chain_id?: number | null;
  /** Scheme 3 (required there): the announced one-time address the recipient's scan decides on. */
  stealth_address?: string | null;
  /**
   * Scheme 1000: the ERC-5564 metadata (view tag + sealed note: 93 bytes, or 113 for the note that
   * names its asset) or the sealed note alone (92 or 112 bytes). Scheme 3: what follows the view
   * tag (a sealed note of 92 or 112 bytes, or 56 bytes of token metadata).
   */
  metadata?: HexInput | null;
};

export type PublishAnnouncementReturnType = { id: number; success: true };

export type ListAnnouncementsParameters = {
  /** Only this view tag (takes precedence over the time range). */
  view_tag?: number;
  /** Range start (inclusive); used only together with `to_timestamp`. */
  from_timestamp?: number;
  to_timestamp?: number;
  /** Rows of the selection to skip (default 0). */
  offset?: number;
  /** Page size (default 100, at most 1000). */
  limit?: number;
  /** Cursor: only ids greater than this (the last id of the previous page). */
  after_id?: number;
  /** Only rows of this chain, or of any of these chains (EIP-155 ids; sent comma-separated). */
  chain_id?: number | readonly number[];
};

export type ListAnnouncementsReturnType = { announcements: AnnouncementJson[]; total: number };

export type RegistryStatsJson = {
  total_announcements: number;
  /** Non-zero buckets, ascending by tag. */
  view_tag_distribution: { tag: number; count: number }[];
};

// --- names and IPFS -----------------------------------------------------------------------

export type UploadMetaAddressParameters = {
  /** Hex or `st:<chain>:0x<hex>`; validated by the server. */
  meta_address: HexInput;
  /** Display name of the pin. */
  name?: string | null;
};

export type UploadMetaAddressReturnType = {
  cid: string;
  /** `ipfs://<cid>`: write it into the name's `stealth-meta` text record. */
  text_record: string;
};

/** What both name resolvers answer. */
export type ResolvedMetaAddressJson = {
  meta_address: string;
  spending_pk: string;
  viewing_pk: string;
  /** CID the meta-address bytes were downloaded from (and verified against). */
  ipfs_cid: string;
};

export type ResolveEnsReturnType = ResolvedMetaAddressJson & { ens_name: string };

export type ResolveSuinsParameters = {
  /** Clear the server's CID download cache before the lookup. */
  no_cache?: boolean;
};

export type ResolveSuinsReturnType = ResolvedMetaAddressJson & { suins_name: string };

export type ResolveEnsAddressReturnType = {
  /** The name as resolved, ENSIP-15 normalised. */
  ens_name: string;
  /** The Ethereum address the name sets (ENSIP-1 `addr`), EIP-55. */
  address: string;
};

export type ReadErc6538Parameters = {
  /** EIP-155 id of a chain the server follows; may be left out when it follows one chain. */
  chain_id?: number;
  /** Only this scheme: 3 (ERC-8441) or 1000. Left out: scheme 3 when registered, else 1000. */
  scheme_id?: 1000 | 3;
};

export type ReadErc6538ReturnType = {
  /** The address whose registration this is (EIP-55). */
  registrant: string;
  chain_id: number;
  /** The scheme the meta-address is registered under. */
  scheme_id: 1000 | 3;
  /** The registered meta-address, lowercase hex without `0x`: 1250 bytes (scheme 3) or 1218 (scheme 1000). */
  meta_address: string;
};

// --- names at an ENS gateway (issue 33) ------------------------------------------------------

/** GET /api/v1/names: whether the server runs an ENS gateway. */
export type NameGatewayJson = { enabled: boolean; parent: string | null; resolver: string | null };

/** GET /api/v1/names/:name, and the answer of a register/change/release. */
export type GatewayNameJson = {
  /** ENSIP-15 normalised. */
  name: string;
  registered: boolean;
  /** `label`: under the deployment's parent name; `own`: the owner's ENS name; null when not registered. */
  kind: 'label' | 'own' | null;
  /** The meta-address lookups are paid to, lowercase hex without `0x`, or null. */
  meta_address: string | null;
  /** What the next register/change/release must sign (SDK `nameRegistrationMessage`). */
  nonce: number;
  /** The deployment's OffchainResolver (lowercase). */
  resolver: string;
  /** The parent name labels are registered under. */
  parent: string;
};

/**
 * Register, change or release a name. `sign` is EIP-191 `personal_sign` of the message by the
 * meta-address's spending key (a label: the new meta-address's to register, the registered one's
 * to change or release) or by the ENS owner (an own name), e.g. viem's `account.signMessage`.
 */
export type GatewayNameChangeParameters = {
  name: string;
  /** Either form, as bytes or hex (the server checks it); required to register or change. */
  metaAddress?: string | Uint8Array;
  sign: (message: string) => Promise<string>;
};

// --- private channels ---------------------------------------------------------------------

export type CreateChannelParameters = {
  /** A `.eth` or `.sui` name, or a meta-address. */
  recipient: string;
  /** Token symbol, one of the config's `supported_tokens`. */
  token: string;
  /** Decimal amount in token units, e.g. `"12.5"`. */
  amount: string;
  /** 32-byte id; random when omitted. */
  channel_id?: HexInput | null;
};

export type CreateChannelReturnType = {
  channel_id: string;
  stealth_address: string;
  stealth_sui_address: string;
  token: string;
  amount: string;
  /** The published announcement; `tx_hash` is `channel:<channel_id>`. */
  announcement: AnnouncementJson;
};

export type DiscoverChannelsParameters = {
  viewing_sk: HexInput;
  spending_pk: HexInput;
  spending_sk: HexInput;
};

export type DiscoveredChannelJson = {
  channel_id: string;
  stealth_address: string;
  stealth_sui_address: string;
  /** Secret: spends from the stealth address. */
  eth_private_key: string;
  status: 'open' | 'closed';
  discovered_at: number;
  announced_at: number;
  announcement_id: number;
  amount: string | null;
  token: string | null;
};

export type DiscoverChannelsReturnType = {
  channels: DiscoveredChannelJson[];
  stats: { total_scanned: number; view_tag_matches: number; discoveries: number; duration_ms: number };
};

export type ChannelStatusJson = {
  channel_id: string;
  status: 'open' | 'closed' | 'unknown';
  token: string | null;
  amount: string | null;
  balance: string | null;
  created_at: number | null;
  closed_at: number | null;
};

export type FundChannelParameters = { channel_id: HexInput; amount: string };

/** Placeholder result: nothing is submitted to any chain or channel network. */
export type FundChannelReturnType = {
  channel_id: string;
  placeholder: true;
  message: string;
  tx_id: string;
  status: 'open';
  token: string;
  amount: string;
  balance: string;
};

export type CloseChannelParameters = { channel_id: HexInput };

/** Placeholder result: nothing is submitted to any chain or channel network. */
export type CloseChannelReturnType = {
  channel_id: string;
  placeholder: true;
  message: string;
  tx_id: string;
  status: 'closed';
  already_closed: boolean;
  token: string;
  final_balance: string;
  closed_at: number;
};

export type ChannelConfigJson = {
  ws_url: string;
  custody_address: string;
  adjudicator_address: string;
  chain_id: number;
  supported_tokens: { symbol: string; address: string; decimals: number }[];
};

/** One token of a followed chain (GET /api/v1/chains). */
export type ChainTokenJson = { address: string; symbol: string; decimals: number };

/** GET /api/v1/chains: what each followed chain offers (tokens, gasless withdrawals). */
export type ChainsJson = {
  chains: {
    name: string;
    /** EIP-155 id; null until the server's RPC answered it. */
    chain_id: number | null;
    tokens: ChainTokenJson[];
    /** ERC-4337 v0.8 bundler, paymaster and the tokens it takes its fee in; null when not offered. */
    gasless: { bundler_url: string; entry_point: string; paymaster: string; tokens: string[] } | null;
  }[];
};
