/**
 * Send: resolve a recipient, make a one-time address for them, pay it, announce the payment.
 *
 *   WRAITH_URL=http://localhost:3001 npx tsx examples/send.ts <recipient> [amount]
 *
 * <recipient> is a meta-address (hex or st:eth:0x…), a `.eth` name or a `.sui` name. The
 * payment itself is your wallet's job; here TX_HASH stands for its transaction hash (a
 * random one when unset).
 */
import { announcementForPayment, createClient, createStealthPayment, isApiError } from '@wraith-pq/sdk';

const baseUrl = process.env.WRAITH_URL ?? 'http://localhost:3001';
const [recipient, amount = '0.01'] = process.argv.slice(2);
if (!recipient) {
  console.error('usage: npx tsx examples/send.ts <meta-address | name.eth | name.sui> [amount]');
  process.exit(2);
}
const client = createClient({ baseUrl, ...(process.env.WRAITH_API_KEY ? { apiKey: process.env.WRAITH_API_KEY } : {}) });

try {
  // 1. Resolve: names publish their meta-address through ENS or SuiNS (checked by the server,
  //    and decoded again by createStealthPayment below).
  let metaAddress = recipient;
  if (recipient.endsWith('.eth')) metaAddress = (await client.resolveEns(recipient)).meta_address;
  else if (recipient.endsWith('.sui')) metaAddress = (await client.resolveSuins(recipient)).meta_address;

  // 2. A fresh one-time address, made on this device: nobody else learns it belongs to the recipient.
  const payment = createStealthPayment(metaAddress);
  console.log(`pay ${amount} to ${payment.stealthAddress} (Sui: ${payment.stealthSuiAddress})`);

  // 3. Pay it with your wallet. This example stands in a transaction hash.
  const txHash = process.env.TX_HASH ?? `0x${Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, '0')).join('')}`;

  // 4. Announce it, so the recipient's scan finds it.
  const { id } = await client.publishAnnouncement(announcementForPayment(payment, { txHash, amount, chain: 'ethereum' }));
  console.log(`announced: #${id} tx ${txHash}`);
} catch (error) {
  if (!isApiError(error)) throw error;
  // ApiError: the server's code, the fields at fault, and the request id to quote.
  console.error(`failed: ${error.code} (${error.status ?? 'no answer'}) ${error.shortMessage}`);
  for (const detail of error.details) console.error(`  ${detail.path}: ${detail.issue}`);
  console.error(`  request id: ${error.requestId ?? '-'}`);
  process.exit(1);
}
