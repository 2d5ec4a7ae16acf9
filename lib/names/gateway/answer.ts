/**
 * The wire format of the gateway (EIP-3668 CCIP-Read behind an ENSIP-10 OffchainResolver).
 *
 * The resolver reverts `OffchainLookup(resolver, [url], callData, resolveWithProof, callData)`
 * with `callData = IResolverService.resolve(bytes dnsName, bytes data)`; `data` is the record
 * call (`addr(bytes32)`, `addr(bytes32,uint256)`, `text(bytes32,string)`, `contenthash(bytes32)`).
 * The answer is `abi.encode(bytes result, uint64 expires, bytes signature)`, where the signature
 * is the resolver signer's over
 * `keccak256(0x1900 || resolver || expires || keccak256(callData) || keccak256(result))`, no
 * EIP-191 prefix (@ensdomains/offchain-resolver-contracts 0.2.1 SignatureVerifier); the resolver
 * refuses it once `expires < block.timestamp`.
 */
import {
  concatHex,
  decodeFunctionData,
  encodeAbiParameters,
  keccak256,
  numberToHex,
  parseAbi,
  zeroAddress,
  type Hex,
} from 'viem';
import { sign, serializeSignature } from 'viem/accounts';
import { namehash, normalize } from 'viem/ens';
import { HttpError } from '../../http/errors.ts';

export const resolverServiceAbi = parseAbi(['function resolve(bytes name, bytes data) view returns (bytes result, uint64 expires, bytes sig)']);
export const recordAbi = parseAbi([
  'function addr(bytes32 node) view returns (address)',
  'function addr(bytes32 node, uint256 coinType) view returns (bytes)',
  'function text(bytes32 node, string key) view returns (string)',
  'function contenthash(bytes32 node) view returns (bytes)',
]);

/** What a lookup asks for. */
export type RecordQuery =
  | { record: 'addr'; coinType: bigint }
  | { record: 'text'; key: string }
  | { record: 'contenthash' };

/** A decoded lookup: the name (normalised; null when it does not normalise) and the record asked. */
export type GatewayLookup = { name: string | null; query: RecordQuery; data: Hex };

/** ENSIP-9 coin type of Ethereum; ENSIP-11 EVM chain `id` is `0x80000000 | id` (0x80000000 alone: any EVM chain, ENSIP-19). */
export const ETH_COIN_TYPE = 60n;
const EVM_COIN_BIT = 0x80000000n;

/** The EIP-155 chain an ENSIP-11 coin type stands for (`0x80000000 | id`), 0 for ENSIP-19's "any EVM chain", else null (60 included: see lookup.ts). */
export function chainOfEvmCoinType(coinType: bigint): number | null {
  if (coinType >= EVM_COIN_BIT && coinType < EVM_COIN_BIT * 2n) return Number(coinType - EVM_COIN_BIT);
  return null;
}

const badRequest = (issue: string) =>
  new HttpError(400, 'VALIDATION_ERROR', 'The CCIP-Read request is not a resolve(bytes,bytes) call this gateway answers.', { details: [{ path: 'data', issue }] });

/**
 * Decode `callData` of an OffchainLookup.
 * @throws {HttpError} 400 VALIDATION_ERROR when it is not `resolve(name, data)` of a record this gateway serves.
 */
export function decodeLookup(callData: Hex): GatewayLookup {
  let outer;
  try {
    outer = decodeFunctionData({ abi: resolverServiceAbi, data: callData });
  } catch {
    throw badRequest('is not resolve(bytes,bytes)');
  }
  const [dnsName, data] = outer.args;
  const name = decodeDnsName(dnsName);
  let inner;
  try {
    inner = decodeFunctionData({ abi: recordAbi, data });
  } catch {
    throw badRequest('asks for a record other than addr, text or contenthash');
  }
  const node = inner.args[0];
  // The record call must be about the name the lookup carries (ENSIP-10: `data` is for that name).
  const forName = name === null ? null : namehash(name);
  const matches = forName !== null && node.toLowerCase() === forName;
  const query: RecordQuery =
    inner.functionName === 'addr'
      ? { record: 'addr', coinType: inner.args.length === 2 ? inner.args[1] : ETH_COIN_TYPE }
      : inner.functionName === 'text'
        ? { record: 'text', key: inner.args[1] }
        : { record: 'contenthash' };
  return { name: matches ? name : null, query, data };
}

/** The DNS wire-format name (RFC 1035 3.1, ENSIP-10) as a normalised name, or null. */
export function decodeDnsName(packet: Hex): string | null {
  const bytes = Buffer.from(packet.slice(2), 'hex');
  const labels: string[] = [];
  let at = 0;
  while (at < bytes.length) {
    const length = bytes[at]!;
    if (length === 0) break;
    if (at + 1 + length > bytes.length) return null;
    labels.push(bytes.subarray(at + 1, at + 1 + length).toString('utf8'));
    at += 1 + length;
  }
  if (at !== bytes.length - 1 || labels.length === 0) return null;
  try {
    const name = normalize(labels.join('.'));
    return name === labels.join('.') ? name : null;
  } catch {
    return null;
  }
}

/**
 * The ABI-encoded answer of the record `lookup` asks for: `address` (EIP-55 or null: no address)
 * for `addr`, empty for text and contenthash (this gateway publishes only addresses).
 */
export function encodeRecord(lookup: GatewayLookup, address: string | null): Hex {
  const { query } = lookup;
  if (query.record === 'addr') {
    if (lookup.data.startsWith('0x3b3b57de')) {
      return encodeAbiParameters([{ type: 'address' }], [(address ?? zeroAddress) as Hex]);
    }
    // addr(bytes32,uint256): the 20 address bytes for an EVM coin type (ENSIP-9/11), empty for none.
    return encodeAbiParameters([{ type: 'bytes' }], [(address ?? '0x').toLowerCase() as Hex]);
  }
  if (query.record === 'text') return encodeAbiParameters([{ type: 'string' }], ['']);
  return encodeAbiParameters([{ type: 'bytes' }], ['0x']);
}

/**
 * The signed response body for `callData`: `abi.encode(result, expires, sig)`.
 * @example
 * const data = await signAnswer({ resolver, signingKey }, callData, result, now + 60);
 */
export async function signAnswer(signer: { resolver: Hex; signingKey: Hex }, callData: Hex, result: Hex, expires: number): Promise<Hex> {
  const hash = keccak256(concatHex(['0x1900', signer.resolver, numberToHex(expires, { size: 8 }), keccak256(callData), keccak256(result)]));
  const signature = serializeSignature(await sign({ hash, privateKey: signer.signingKey }));
  return encodeAbiParameters([{ type: 'bytes' }, { type: 'uint64' }, { type: 'bytes' }], [result, BigInt(expires), signature]);
}
