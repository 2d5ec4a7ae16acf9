/**
 * GET /api/v1/ens/address/:name: the Ethereum address an ENS name resolves to, so that a sender
 * who knows only the name can read that address's ERC-6538 registration through their own wallet
 * (ERC-8441 Section 2.3: name, then address, then registry). The name travels to this server as
 * it does for GET /ens/resolve; the registry read does not.
 */
import { HttpError } from '../http/errors.ts';
import { normalizeEnsName, readEnsAddress } from '../names/ens.ts';
import type { EnsAddressResponse } from '../schemas/erc6538.ts';

/**
 * @throws {HttpError} 400 INVALID_NAME; 404 NAME_NOT_FOUND for a name that is not registered or
 * sets no address; 502 / 504 for upstream failures.
 */
export async function ensAddressJson(input: string): Promise<EnsAddressResponse> {
  const name = normalizeEnsName(input);
  let address: Awaited<ReturnType<typeof readEnsAddress>>;
  try {
    address = await readEnsAddress(name);
  } catch (error) {
    // A resolver that is no contract holds no records at all: for this route, no address (the
    // lookup's own NO_STEALTH_RECORD speaks of the stealth record GET /ens/resolve reads).
    if (error instanceof HttpError && error.code === 'NO_STEALTH_RECORD') address = null;
    else throw error;
  }
  if (address === null) throw new HttpError(404, 'NAME_NOT_FOUND', 'The name sets no Ethereum address (ENSIP-1 addr record): there is no address to look up in the ERC-6538 registry.');
  return { ens_name: name, address };
}
