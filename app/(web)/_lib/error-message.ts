/** A sentence for the user from whatever an action threw (SDK, API or browser error). */
import { WraithError } from '@wraith-pq/sdk';
import { ApiError } from './api';

export function errorMessage(error: unknown): string {
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
  if (error instanceof Error) return error.message;
  return 'Something went wrong.';
}
