/**
 * What the web app tells a person when an action fails (app/(web)/_lib/error-message.ts).
 */
import { WrongPasswordError } from '@wraith-pq/sdk';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../app/(web)/_lib/api.ts';
import { UserRejectedRequestError, TransactionExecutionError } from 'viem';
import { errorDetails, errorMessage } from '../../app/(web)/_lib/error-message.ts';

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

  it('say a request declined in the wallet in one sentence, the wallet\'s request kept for the technical details', () => {
    const rejected = new TransactionExecutionError(new UserRejectedRequestError(Object.assign(new Error('User rejected the request.'), { code: 4001 })), {
      account: { address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', type: 'json-rpc' },
      to: '0x0000000000000000000000000000000000000001',
      gas: 21000n,
    } as never);
    expect(errorMessage(rejected)).toBe('You cancelled in your wallet. Nothing was sent.');
    expect(errorDetails(rejected)).toMatch(/User rejected the request/);
    // A bare EIP-1193 error with code 4001 reads the same.
    expect(errorMessage(Object.assign(new Error('denied'), { code: 4001 }))).toBe('You cancelled in your wallet. Nothing was sent.');
  });
});
