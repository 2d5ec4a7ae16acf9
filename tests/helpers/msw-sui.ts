/**
 * A Sui full node's JSON-RPC, as far as SuiNS name lookups use it, for msw.
 *
 * `SuinsClient.getNameRecord(name)` over `SuiJsonRpcClient` makes one call:
 * `sui_multiGetObjects([<field id>], {showType, showOwner, showBcs, showPreviousTransaction, …})`
 * where the field id is the dynamic field of the SuiNS registry table keyed by
 * `Domain { labels: reversed labels }`. The handler answers exactly like a node: the
 * `0x2::dynamic_field::Field<Domain, NameRecord>` object with its BCS contents for a registered
 * name, `{ error: { code: "notExists", object_id } }` for any other id, and JSON-RPC errors for
 * methods it does not serve. Records use SuiNS's mainnet package ids from @mysten/suins.
 */
import { bcs, TypeTagSerializer } from '@mysten/sui/bcs';
import { deriveDynamicFieldID, toBase58, toBase64 } from '@mysten/sui/utils';
import { mainPackage } from '@mysten/suins';
import { http, HttpResponse } from 'msw';

export const SUI_RPC_URL = 'https://fullnode.test-sui.example/';

const packageIdV1 = mainPackage.mainnet.packageIdV1;
const registryTableId = mainPackage.mainnet.registryTableId!;
const DOMAIN_TYPE = `${packageIdV1}::domain::Domain`;
const FIELD_TYPE = `0x2::dynamic_field::Field<${DOMAIN_TYPE}, ${packageIdV1}::name_record::NameRecord>`;

// Move layouts (suins::domain::Domain, suins::name_record::NameRecord, sui::vec_map::VecMap, sui::dynamic_field::Field).
const Domain = bcs.struct('Domain', { labels: bcs.vector(bcs.string()) });
const NameRecord = bcs.struct('NameRecord', {
  nft_id: bcs.Address,
  expiration_timestamp_ms: bcs.u64(),
  target_address: bcs.option(bcs.Address),
  data: bcs.struct('VecMap', { contents: bcs.vector(bcs.struct('Entry', { key: bcs.string(), value: bcs.string() })) }),
});
const Field = bcs.struct('Field', { id: bcs.Address, name: Domain, value: NameRecord });

export type SuiNameFixture = {
  /** `content_hash` in the record's data; omitted when undefined. */
  contentHash?: string;
  /** Other data entries (avatar, walrus_site_id, …). */
  data?: Record<string, string>;
  /** Default: one year from now. */
  expirationTimestampMs?: number;
};

/** The registry's dynamic-field id of `name` (what the SuiNS client asks the node for). */
export function nameRecordFieldId(name: string): string {
  const labels = name.toLowerCase().split('.').reverse();
  return deriveDynamicFieldID(registryTableId, TypeTagSerializer.parseFromStr(DOMAIN_TYPE), Domain.serialize({ labels }).toBytes());
}

function digest(seed: string): string {
  return toBase58(new Uint8Array(32).map((_, i) => (seed.charCodeAt(i % seed.length) * (i + 7)) & 0xff));
}

function objectResponse(name: string, fixture: SuiNameFixture) {
  const fieldId = nameRecordFieldId(name);
  const entries = Object.entries({ ...(fixture.contentHash === undefined ? {} : { content_hash: fixture.contentHash }), ...fixture.data });
  const contents = Field.serialize({
    id: fieldId,
    name: { labels: name.toLowerCase().split('.').reverse() },
    value: {
      nft_id: `0x${'ab'.repeat(32)}`,
      expiration_timestamp_ms: BigInt(fixture.expirationTimestampMs ?? Date.now() + 365 * 24 * 3600 * 1000),
      target_address: `0x${'cd'.repeat(32)}`,
      data: { contents: entries.map(([key, value]) => ({ key, value })) },
    },
  }).toBytes();
  return {
    data: {
      objectId: fieldId,
      version: '314159265',
      digest: digest(name),
      type: FIELD_TYPE,
      owner: { ObjectOwner: registryTableId },
      previousTransaction: digest(`tx:${name}`),
      storageRebate: '3017200',
      bcs: { dataType: 'moveObject', type: FIELD_TYPE, hasPublicTransfer: false, version: 314159265, bcsBytes: toBase64(contents) },
    },
  };
}

export type SuiRpcMock = {
  /** Registered names (lower-case `<label>.sui`) and their records. */
  names: Map<string, SuiNameFixture>;
  /** JSON-RPC methods received, in order. */
  calls: string[];
  handlers: ReturnType<typeof http.post>[];
  /** Forget every name and call. */
  reset(): void;
};

/** msw handlers for a Sui full node at `url` serving `names`. */
export function createSuiRpcMock(url: string = SUI_RPC_URL): SuiRpcMock {
  const names = new Map<string, SuiNameFixture>();
  const calls: string[] = [];
  // `new URL` drops a default port (`:443`) and adds the `/` path, as fetch does on the wire.
  const handler = http.post(new URL(url).href, async ({ request }) => {
    const { id, method, params } = (await request.json()) as { id: number; method: string; params: unknown[] };
    calls.push(method);
    if (method !== 'sui_multiGetObjects') {
      return HttpResponse.json({ jsonrpc: '2.0', id, error: { code: -32601, message: `Method not found: ${method}` } });
    }
    const byFieldId = new Map([...names].map(([name, fixture]) => [nameRecordFieldId(name), () => objectResponse(name, fixture)]));
    const result = (params[0] as string[]).map((objectId) => byFieldId.get(objectId)?.() ?? { error: { code: 'notExists', object_id: objectId } });
    return HttpResponse.json({ jsonrpc: '2.0', id, result });
  });
  const reset = () => {
    names.clear();
    calls.length = 0;
  };
  return { names, calls, handlers: [handler], reset };
}
