/**
 * HTTP errors: the one place where failures become status codes and JSON bodies.
 *
 * Body (API.md "Errors"): `{ "error": { "code", "message", "details"? } }`, where `details` is a
 * list of `{ path, issue }`. Messages and details never contain request values, so a secret
 * key sent in the wrong field cannot come back in a response or land in a log. SDK errors
 * follow the same rule (sdk/src/errors.ts) and keep their `details`.
 */
import { isDuplicateAnnouncement, isStoreUnavailable } from '../server/store-errors.ts';

/** One problem with one input field: where, and what rule it broke. Never the value. */
export type ErrorDetail = { path: string; issue: string };

export type ErrorBody = { error: { code: string; message: string; details?: ErrorDetail[] } };

/** An error with its HTTP status, stable code and optional response headers. */
export class HttpError extends Error {
  override name = 'HttpError';
  readonly status: number;
  readonly code: string;
  readonly details: ErrorDetail[] | undefined;
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    code: string,
    message: string,
    options: { details?: ErrorDetail[]; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = status;
    this.code = code;
    this.details = options.details;
    this.headers = options.headers ?? {};
  }

  toBody(): ErrorBody {
    return {
      error: {
        code: this.code,
        message: this.message,
        ...(this.details !== undefined && this.details.length > 0 ? { details: this.details } : {}),
      },
    };
  }
}

/** 400 VALIDATION_ERROR with the fields that failed. */
export function validationError(details: ErrorDetail[], message = 'The request is invalid; see details.'): HttpError {
  return new HttpError(400, 'VALIDATION_ERROR', message, { details });
}

/** SDK error codes (sdk/src/errors.ts) and how each reaches the client. */
const SDK_ERRORS: Record<string, { status: number; code: string }> = {
  INVALID_META_ADDRESS: { status: 400, code: 'INVALID_META_ADDRESS' },
  LEGACY_META_ADDRESS: { status: 400, code: 'LEGACY_META_ADDRESS' },
  INVALID_HEX: { status: 400, code: 'VALIDATION_ERROR' },
  INVALID_KEY: { status: 400, code: 'VALIDATION_ERROR' },
  KEY_MISMATCH: { status: 400, code: 'VALIDATION_ERROR' },
  INVALID_ARGUMENT: { status: 400, code: 'VALIDATION_ERROR' },
  INVALID_ANNOUNCEMENT: { status: 400, code: 'VALIDATION_ERROR' },
  INVALID_CID: { status: 400, code: 'INVALID_CID' },
  CONTENT_MISMATCH: { status: 422, code: 'CONTENT_MISMATCH' },
};

type SdkErrorLike = Error & { code: string; details?: unknown };

/** Duck-typed for the reason in lib/server/store-errors.ts: the SDK may be loaded more than once. */
function isSdkError(error: unknown): error is SdkErrorLike {
  return error instanceof Error && typeof (error as { code?: unknown }).code === 'string' && (error as SdkErrorLike).code in SDK_ERRORS;
}

function sdkDetails(details: unknown): ErrorDetail[] {
  if (!Array.isArray(details)) return [];
  return details
    .filter((d): d is ErrorDetail => typeof d?.path === 'string' && typeof d?.issue === 'string')
    .map(({ path, issue }) => ({ path, issue }));
}

/**
 * Map anything thrown while handling a request to an {@link HttpError}. Unknown errors become
 * 500 INTERNAL_ERROR with a generic message; the caller logs the original with the request id.
 */
export function toHttpError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  if (isSdkError(error)) {
    const { status, code } = SDK_ERRORS[error.code]!;
    return new HttpError(status, code, error.message, { details: sdkDetails(error.details), cause: error });
  }
  if (isDuplicateAnnouncement(error)) {
    return new HttpError(409, 'DUPLICATE_ANNOUNCEMENT', 'An announcement with this tx_hash is already in the registry; nothing was stored.', {
      cause: error,
    });
  }
  if (isStoreUnavailable(error)) {
    return new HttpError(503, 'SERVICE_UNAVAILABLE', 'The announcement registry is unavailable; retry later.', {
      headers: { 'Retry-After': '5' },
      cause: error,
    });
  }
  return internalError(error);
}

/** 500 with a message that reveals nothing; the cause stays for the log line. */
export function internalError(cause?: unknown): HttpError {
  return new HttpError(500, 'INTERNAL_ERROR', 'Internal server error. Quote the x-request-id response header when reporting it.', {
    cause,
  });
}

/** True for errors the client did not cause: these are logged with their cause. */
export function isServerFault(error: HttpError): boolean {
  return error.status >= 500;
}
