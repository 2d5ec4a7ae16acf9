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

/**
 * The exact pattern of `bytes` bytes in hex input: optional `0x`/`0X`, then exactly `2 * bytes`
 * digits of either case. One regex rather than "hex" plus a length refinement, so the OpenAPI
 * document (generated from these schemas) states the very rule the handler checks and a client
 * can generate or validate values from it.
 */
export const hexInputPattern = (bytes: number) => new RegExp(`^(0[xX])?[0-9a-fA-F]{${bytes * 2}}$`);

/** Hex text of exactly `bytes` bytes, parsed to a `Uint8Array`. Surrounding whitespace is trimmed first. */
export function hexBytes(bytes: number, description: string) {
  return z
    .string()
    .trim()
    .regex(hexInputPattern(bytes), `must be ${bytes} bytes: ${bytes * 2} hex digits, optionally 0x-prefixed`)
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

/** Output form of `bytes` bytes: exactly `2 * bytes` lowercase hex digits without `0x` (API.md "Shape"). */
export const hexOutput = (bytes: number, description: string) =>
  z.string().regex(new RegExp(`^[0-9a-f]{${bytes * 2}}$`)).describe(description);

/** An EIP-55 (mixed-case) EVM address with `0x`. */
export const evmAddressOutput = (description: string) => z.string().regex(/^0x[0-9a-fA-F]{40}$/).describe(description);

/** A Sui address: `0x` + 64 lowercase hex digits (API.md "Shape"). */
export const suiAddressOutput = (description: string) => z.string().regex(/^0x[0-9a-f]{64}$/).describe(description);

/** 32 bytes as `0x` + 64 lowercase hex digits: transaction hashes in notes, `eth_private_key`. */
export const prefixedHash32Output = (description: string) => z.string().regex(/^0x[0-9a-f]{64}$/).describe(description);

/**
 * A meta-address as a client sends it (PROTOCOL.md section 3): 1218 bytes in hex (0x optional)
 * or the ERC-5564 URI `st:<chain>:0x<hex>`.
 */
export const META_ADDRESS_INPUT_PATTERN = '^((0[xX])?([0-9a-fA-F]{2436}|[0-9a-fA-F]{2500})|st:[A-Za-z0-9-]{1,32}:0[xX]([0-9a-fA-F]{2436}|[0-9a-fA-F]{2500}))$';

/**
 * The meta-address request field. The handler decodes it with the SDK (PROTOCOL.md section 3)
 * and answers INVALID_META_ADDRESS or LEGACY_META_ADDRESS, codes a zod rule could not give, so
 * the pattern is stated for clients (in the document) rather than checked here; every value it
 * admits is one the decoder reads, and the decoder also checks the version byte and the curve point.
 */
export const metaAddressInput = (description: string) =>
  z.string().meta({ pattern: META_ADDRESS_INPUT_PATTERN, description });
