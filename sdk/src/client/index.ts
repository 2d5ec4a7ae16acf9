/**
 * Typed client of the Wraith HTTP API: `createClient({ baseUrl, apiKey?, fetch? })`, one method
 * per endpoint, {@link ApiError}s with the server's code and request id, retries of safe
 * requests honouring `Retry-After`, `AbortSignal` and timeouts per call, and the registry as a
 * page source for `scanRegistry`.
 *
 * Import it as `@wraith-pq/sdk/client` (or from `@wraith-pq/sdk`).
 * @module
 */
export { createClient, type CreateClientParameters, type WraithClient } from './create-client.ts';
export { ApiError, TimeoutError, NetworkError, isApiError, type ApiErrorCode, type ApiErrorParameters } from './errors.ts';
export type { CallOptions } from './transport.ts';
export { parseRetryAfter, type RetryOptions, type RetryEvent } from './retry.ts';
export { MAX_ANNOUNCEMENT_PAGE_SIZE, MAX_BINARY_ANNOUNCEMENT_PAGE_SIZE, type AnnouncementPagesParameters, type AnnouncementPageSource } from './announcement-pages.ts';
export {
  announcementFromJson,
  announcementForPayment,
  keysFromBundle,
  scanParametersFor,
  type AnnouncementForPaymentOptions,
  type AnnouncementForPaymentPayment,
} from './convert.ts';
export type * from './types.ts';
