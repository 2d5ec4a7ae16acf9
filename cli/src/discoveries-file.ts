/**
 * The discoveries a withdrawal starts from: the JSON lines of `wraith scan --json > found.json`
 * (one `discovery` per payment, then a `summary` naming the source). The file holds no secret:
 * it says which stealth addresses to withdraw and where their announcements are (blocks of a
 * chain, or a server's registry). The one-time keys are derived again on this machine from the
 * keystore and those announcements, and never written anywhere.
 * @module
 */
import { getAddress, isAddress, type Address } from 'viem';
import { CliError } from './errors.js';
import { readTextFile } from './files.js';

export type DiscoveriesFile = {
  /** `chain:<id>` or `api:<url>` from the scan's summary, or null when the file has none. */
  source: string | null;
  /** The stealth addresses, in the file's order, each once. */
  addresses: Address[];
  /** Lowest and highest block of the chain announcements (null when the discoveries come from a registry). */
  blocks: { from: bigint; to: bigint } | null;
};

/** Read `path`, written by `wraith scan --json` (JSON lines; a JSON array of discoveries also works). */
export async function readDiscoveriesFile(path: string): Promise<DiscoveriesFile> {
  const text = await readTextFile(path, '--discoveries');
  const bad = (why: string) => new CliError('INVALID_FILE', `--discoveries ${path}: ${why}`, 'pass the output of `wraith scan --json` (e.g. wraith scan … --json > found.json)');
  let rows: unknown[];
  try {
    const trimmed = text.trim();
    rows = trimmed.startsWith('[') ? (JSON.parse(trimmed) as unknown[]) : trimmed.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as unknown);
  } catch {
    throw bad('not JSON lines');
  }
  let source: string | null = null;
  const addresses: Address[] = [];
  const seen = new Set<string>();
  let from: bigint | null = null;
  let to: bigint | null = null;
  for (const row of rows) {
    if (typeof row !== 'object' || row === null) throw bad('a line is not a JSON object');
    const r = row as Record<string, unknown>;
    if (r.type === 'summary') {
      if (typeof r.source === 'string') source = r.source;
      continue;
    }
    if (r.type !== undefined && r.type !== 'discovery') continue;
    if (typeof r.stealth_address !== 'string' || !isAddress(r.stealth_address, { strict: false })) throw bad('a discovery has no valid stealth_address');
    const address = getAddress(r.stealth_address);
    if (!seen.has(address)) {
      seen.add(address);
      addresses.push(address);
    }
    if (typeof r.block_number === 'number' && Number.isSafeInteger(r.block_number) && r.block_number >= 0) {
      const block = BigInt(r.block_number);
      if (from === null || block < from) from = block;
      if (to === null || block > to) to = block;
    }
  }
  if (addresses.length === 0) throw bad('it lists no discovery');
  return { source, addresses, blocks: from === null || to === null ? null : { from, to } };
}
