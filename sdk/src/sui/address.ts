/**
 * Sui addresses as inputs: `0x` and 64 hex digits (32 bytes), returned lowercase.
 * @module
 */
import { InvalidArgumentError } from '../errors.ts';

const SUI_ADDRESS = /^0[xX][0-9a-fA-F]{64}$/;

/**
 * A full Sui address, lowercased. Short forms (`0x2`) are refused: they name system objects,
 * and a destination with missing digits is more likely a typo than a wish.
 * @throws {InvalidArgumentError} naming `path`.
 */
export function parseSuiAddress(value: unknown, path: string): string {
  if (typeof value !== 'string' || !SUI_ADDRESS.test(value.trim())) {
    throw new InvalidArgumentError(path, 'must be a Sui address: 0x and 64 hex digits');
  }
  return value.trim().toLowerCase();
}
