/**
 * "One rule, one place" (issue 32): the EIP-55 check an address typed by a person passes, written
 * once in the SDK (`checksumProblem`) and read the same by every surface that takes one: the
 * registry's scheme-3 publish, the channel configuration, GET /erc6538/:address, Send in the web
 * app and `wraith pay`. Before, each had its own copy, and the CLI refused an address in capitals
 * that the others took.
 */
import { bytesToHex, createStealthPayment, erc8441KeysOf, generateKeys } from '@wraith-pq/sdk';
import { beforeEach, describe, expect, it } from 'vitest';
import { classifyRecipient } from '../../app/(web)/_lib/recipient.ts';
import { resolveRecipient } from '../../cli/src/recipient.ts';
import { yellowEnvironment } from '../../lib/channels/config.ts';
import { registeredMetaAddress } from '../../lib/service/erc6538.ts';
import { configure } from '../helpers/api.ts';
import { randomHex, request } from '../helpers/routes.ts';

beforeEach(() => configure());

/** Whether each surface takes `address` (true) or refuses it as a mistyped address (false). */
async function verdicts(address: string): Promise<Record<string, boolean>> {
  const payment = createStealthPayment(erc8441KeysOf(generateKeys()).metaAddress);
  const published = await request('announcements', 'POST', {
    body: { ephemeral_key: bytesToHex(payment.ephemeralCiphertext), view_tag: payment.viewTag, tx_hash: `0x${randomHex(32)}`, stealth_address: address },
  });
  const lookup = await registeredMetaAddress(address, {}).catch((error: unknown) => error);
  const cli = await resolveRecipient(address, { api: undefined, registry: undefined, usage: 'wraith pay <recipient>' }).catch((error: unknown) => error);
  return {
    publish: published.status === 201,
    channels: yellowEnvironment.YELLOW_CUSTODY_ADDRESS.safeParse(address).success,
    erc6538: !(lookup instanceof Error && (lookup as { code?: string }).code === 'VALIDATION_ERROR'),
    web: classifyRecipient(address).kind === 'address',
    // A plain address goes on to the registry read (refused here for want of --rpc), a mistyped one stops first.
    cli: (cli as { code?: string }).code !== 'INVALID_ADDRESS',
  };
}

const CHECKSUMMED = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'; // EIP-55's own example
const everywhere = (taken: boolean) => ({ publish: taken, channels: taken, erc6538: taken, web: taken, cli: taken });

describe('one EIP-55 rule for every address a person types', () => {
  it.each([
    ['its EIP-55 checksum', CHECKSUMMED],
    ['all lowercase', CHECKSUMMED.toLowerCase()],
    ['all capitals', `0x${CHECKSUMMED.slice(2).toUpperCase()}`],
  ])('takes an address in %s on every surface', async (_form, address) => {
    expect(await verdicts(address)).toEqual(everywhere(true));
  });

  it('refuses a mixed-case address with one letter in the wrong case on every surface', async () => {
    expect(await verdicts(CHECKSUMMED.replace('aAeb', 'aaeb'))).toEqual(everywhere(false));
  });
});
