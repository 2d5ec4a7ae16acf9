/**
 * A sentence for the user from whatever an action threw (SDK, API, wallet or browser error), and
 * the technical detail the page keeps behind a disclosure. A wallet's long error (viem repeats the
 * whole request: chain, gas, fees, its own version) is never the sentence: its short message is.
 */
import { WraithError } from '@wraith-pq/sdk';
import { ApiError } from './api';

/** What a person reads when they declined a request in their wallet (EIP-1193 code 4001). */
export const CANCELLED_IN_WALLET = 'You cancelled in your wallet. Nothing was sent.';

type Walkable = { name?: unknown; code?: unknown; cause?: unknown; shortMessage?: unknown; message?: unknown };

/** The error and its causes, outermost first (viem wraps a provider's error several times). */
function chain(error: unknown): Walkable[] {
  const out: Walkable[] = [];
  for (let e = error, depth = 0; typeof e === 'object' && e !== null && depth < 10; e = (e as Walkable).cause, depth++) out.push(e as Walkable);
  return out;
}

/** Whether the wallet's user declined the request (EIP-1193 4001, viem's UserRejectedRequestError). */
export function isCancelledInWallet(error: unknown): boolean {
  return chain(error).some((e) => e.code === 4001 || e.name === 'UserRejectedRequestError');
}

export function errorMessage(error: unknown): string {
  if (isCancelledInWallet(error)) return CANCELLED_IN_WALLET;
  if (error instanceof WraithError) {
    switch (error.code) {
      case 'WRONG_PASSWORD':
        return 'Wrong password: the keystore did not open. Check the password and try again.';
      case 'KEYSTORE_TAMPERED':
        return 'This keystore was modified after it was saved and cannot be trusted. Restore it from a backup file.';
      case 'INVALID_KEYSTORE':
        return 'This is not a Wraith keystore file.';
      default:
        return error.message;
    }
  }
  if (error instanceof ApiError && error.code === 'UNAUTHORIZED') {
    // The operator set API_KEY: writes need a key this page does not have (and should not hold).
    return 'This server accepts publications only with its API key, which this page does not have. Publish with the SDK client and the key instead (see the SDK reference).';
  }
  if (error instanceof ApiError) return error.message;
  // viem's errors: the short message, without the request it repeats.
  if (error instanceof Error && typeof (error as Walkable).shortMessage === 'string') return (error as Walkable).shortMessage as string;
  if (error instanceof Error) return error.message;
  return 'Something went wrong.';
}

/** The full text of an error whose sentence left some out (a wallet's request, its version), for a "Technical details" disclosure; null when the sentence is all. */
export function errorDetails(error: unknown): string | null {
  if (!(error instanceof Error)) return null;
  const sentence = errorMessage(error);
  const full = chain(error)
    .map((e) => (typeof e.message === 'string' ? e.message : ''))
    .find((m) => m !== '' && m !== sentence);
  return full ?? null;
}

/** The sentence and the detail of an error, as ErrorNotice shows them. */
export function shownError(error: unknown): { message: string; details: string | null } {
  return { message: errorMessage(error), details: errorDetails(error) };
}
