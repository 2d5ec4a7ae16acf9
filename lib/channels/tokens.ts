/**
 * Which tokens channels can be opened in (`YELLOW_TOKENS`, lib/channels/config.ts) and reading
 * request amounts against a token's precision. Failures are 400 VALIDATION_ERROR naming the
 * field; an unknown token lists the supported symbols (configuration, not request values).
 */
import { HttpError, validationError } from '../http/errors.ts';
import { parseTokenAmount } from './amount.ts';
import type { SupportedToken } from './config.ts';

/**
 * The configured token with this symbol, compared ignoring case.
 * @throws {HttpError} 400 VALIDATION_ERROR listing the supported symbols.
 */
export function findToken(tokens: readonly SupportedToken[], symbol: string): SupportedToken {
  const wanted = symbol.toUpperCase();
  const token = tokens.find((candidate) => candidate.symbol.toUpperCase() === wanted);
  if (token !== undefined) return token;
  const supported = tokens.map((candidate) => candidate.symbol).join(', ');
  throw new HttpError(400, 'VALIDATION_ERROR', `Unsupported token; supported tokens: ${supported}.`, {
    details: [{ path: 'token', issue: `must be one of ${supported}` }],
  });
}

/**
 * The request's `amount` in base units of a token with `decimals`.
 * @throws {HttpError} 400 VALIDATION_ERROR for too many decimal places, zero or an out-of-range amount.
 */
export function amountInBaseUnits(amount: string, decimals: number, field = 'amount'): bigint {
  const parsed = parseTokenAmount(amount, decimals);
  if ('issue' in parsed) throw validationError([{ path: field, issue: parsed.issue }]);
  return parsed.units;
}
