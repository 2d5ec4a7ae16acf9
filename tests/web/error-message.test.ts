/**
 * What the web app tells a person when an action fails (app/(web)/_lib/error-message.ts).
 */
import { WrongPasswordError } from '@wraith-pq/sdk';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../app/(web)/_lib/api.ts';
import { errorMessage } from '../../app/(web)/_lib/error-message.ts';

describe('error messages of the web app', () => {
  it('explain a 401 on a publication: the server wants its API key, which the page does not hold', () => {
    const message = errorMessage(new ApiError(401, 'UNAUTHORIZED', 'A valid API key is required.'));
    expect(message).toMatch(/API key/);
    expect(message).toMatch(/SDK/);
  });

  it('name a wrong keystore password as such', () => {
    expect(errorMessage(new WrongPasswordError())).toMatch(/^Wrong password/);
  });

  it('pass on the server\'s own message for other API errors', () => {
    expect(errorMessage(new ApiError(404, 'NAME_NOT_FOUND', 'The name alice.eth is not registered.'))).toBe('The name alice.eth is not registered.');
  });
});
