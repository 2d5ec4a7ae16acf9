/**
 * Field schemas shared by the request and response schemas of the API.
 *
 * Input rules from API.md "Shape": hex accepts an optional `0x`/`0X` prefix, either case,
 * surrounding whitespace trimmed, and its length is checked exactly; explicit `null` on an
 * optional field means absent. Every schema carries a description: the OpenAPI document is
 * generated from these schemas. Messages never quote the value (API.md "Errors").
 */
import { hexToBytes } from '@wraith-pq/sdk';
import { z } from 'zod';

const HEX = /^(0[xX])?[0-9a-fA-F]*$/;

/** Hex text of exactly `bytes` bytes, parsed to a `Uint8Array`. */
export function hexBytes(bytes: number, description: string) {
  return z
    .string()
    .trim()
    .regex(HEX, { message: 'must be hex digits (optionally 0x-prefixed)', abort: true })
    .refine((text) => text.replace(/^0[xX]/, '').length === bytes * 2, `must be ${bytes} bytes (${bytes * 2} hex digits)`)
    .transform((text) => hexToBytes(text))
    .describe(description);
}

/** C0 controls and DEL (NUL in particular, which SQLite would cut a stored text at), and unpaired surrogates. */
const NOT_PLAIN_TEXT = /[\u0000-\u001f\u007f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Free text stored as given (tx_hash, amount, chain): at most `max` characters, well-formed
 * Unicode without control characters. SQLite stores text as UTF-8, so an unpaired surrogate
 * would come back as U+FFFD and a NUL would cut it short: the stored value would differ from
 * the acknowledged one and from what the memory and PostgreSQL stores keep.
 */
export function plainText(max: number) {
  return z
    .string()
    .max(max)
    .refine((text) => !NOT_PLAIN_TEXT.test(text), 'must be text without control characters or unpaired surrogates');
}

/** An optional field: absent and `null` both become `undefined`. */
export function optional<S extends z.ZodType>(schema: S) {
  const field = schema.nullish().transform((value) => value ?? undefined);
  return schema.description === undefined ? field : field.describe(schema.description);
}

/** 1-byte view tag, PROTOCOL.md sections 4 and 6. */
export const viewTag = z.int().min(0).max(255).describe('View tag: one byte, 0 to 255');

/**
 * How a server-side scan treats announcements (sdk createScanner `mode`, PROTOCOL.md section 5).
 * `fast` runs the full re-encryption check only after a view-tag match, so the scan's duration
 * depends on the registry's ciphertexts, which anyone can publish; `constant` runs it on every
 * announcement (several times slower) so the duration no longer depends on which ones match.
 */
export const scanMode = z
  .enum(['fast', 'constant'])
  .describe(
    "Scan mode (default fast). fast: the full check runs only after a view-tag match, so the duration depends on published ciphertexts; constant: the check runs on every announcement, several times slower, and the duration does not depend on which announcements match",
  );

/** Unix seconds. */
export const unixTimestamp = z.int().min(0).describe('Unix timestamp in seconds');

/**
 * A non-negative integer in a query string (decimal digits only: no sign, exponent or
 * fraction), checked against `[min, max]`.
 */
export function queryInteger(min: number, max: number, description: string) {
  return z
    .string()
    .regex(/^\d{1,15}$/, 'must be a non-negative integer')
    .transform(Number)
    .pipe(z.int().min(min).max(max))
    .optional()
    .describe(description);
}

/** Output form of byte strings: lowercase hex without `0x` (API.md "Shape"). */
export const hexOutput = (description: string) => z.string().regex(/^[0-9a-f]*$/).describe(description);
