/**
 * The embedded content-addressed store (API.md: used when `PINNING_JWT` / the gateway are unset),
 * so publishing and resolving work with nothing configured.
 *
 * One file per content under `IPFS_STORE_DIR`, named by its CIDv1 (raw codec, sha2-256: the CID
 * real IPFS gives the same bytes, `ipfs add --cid-version 1`), plus a copy named by the CID
 * plain `ipfs add` gives them (CIDv0, a dag-pb UnixFS node), so a name whose content hash holds
 * the `Qm…` form resolves too. Writes go to a temporary file renamed into place, so a reader
 * never sees half a file; the content is verified against its CID on every read anyway
 * (lib/ipfs/download.ts), so a damaged file is never served as valid.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cidForBytes, dagPbCidForBytes, DAG_PB_CODEC, RAW_CODEC, type Cid } from '@wraith-pq/sdk';
import { HttpError } from '../http/errors.ts';

export class LocalContentStore {
  readonly directory: string;

  constructor(directory: string) {
    this.directory = directory;
  }

  /** Store `bytes` (idempotent) and return their raw CID. */
  async put(bytes: Uint8Array): Promise<Cid> {
    const cid = cidForBytes(bytes);
    try {
      await mkdir(this.directory, { recursive: true });
      await this.#write(this.#pathOf(dagPbCidForBytes(bytes)), bytes);
      await this.#write(this.#pathOf(cid), bytes); // last: its presence means both are written
      return cid;
    } catch (cause) {
      throw storeUnavailable(cause);
    }
  }

  /** The stored content of a raw or dag-pb `cid`, or undefined. */
  async get(cid: Cid): Promise<Uint8Array | undefined> {
    if (cid.code !== RAW_CODEC && cid.code !== DAG_PB_CODEC) return undefined;
    try {
      return new Uint8Array(await readFile(this.#pathOf(cid)));
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw storeUnavailable(cause);
    }
  }

  async #write(path: string, bytes: Uint8Array): Promise<void> {
    if (await exists(path)) return;
    const temporary = `${path}.${randomUUID()}.tmp`;
    await writeFile(temporary, bytes);
    await rename(temporary, path);
  }

  /** CIDv1 in base32: a v0/v1 or base58/base36 spelling of the same CID maps to one file. */
  #pathOf(cid: Cid): string {
    return join(this.directory, cid.toV1().toString());
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

function storeUnavailable(cause: unknown): HttpError {
  return new HttpError(503, 'SERVICE_UNAVAILABLE', 'The embedded IPFS store cannot be read or written (check IPFS_STORE_DIR); retry later.', {
    headers: { 'Retry-After': '5' },
    cause,
  });
}
