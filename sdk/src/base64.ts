/**
 * Base64 (RFC 4648, standard alphabet, padded) without Node's Buffer: `btoa`/`atob` exist in
 * browsers, workers and Node >= 16.
 * @module
 */
import { InvalidArgumentError } from './errors.ts';

export function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

export function base64ToBytes(text: string, field = 'value'): Uint8Array {
  if (typeof text !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) {
    throw new InvalidArgumentError(field, 'must be base64');
  }
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}
