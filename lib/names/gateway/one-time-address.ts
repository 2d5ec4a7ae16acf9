/**
 * The one-time payment behind the address the gateway issues for lookup `counter` of a name.
 *
 * Its randomness is deterministic: the ML-KEM encapsulation message `m` (FIPS 203 Algorithm 17)
 * and, for an ERC-8441 recipient (scheme 3), the ephemeral scalar `esk` are HMAC-SHA256 of the
 * gateway secret over (purpose, name, counter). The gateway stores only the counter; when the
 * address is paid it derives the same payment again and publishes its announcement
 * (PROTOCOL.md sections 4 and 10). Who holds the secret can link these addresses to the name,
 * which the operator can anyway (it issued them); it cannot spend (that needs the recipient's
 * spending key, PROTOCOL.md section 2). Counters are never reused for a name (store.ts), so no
 * `m` is used twice.
 */
import { createHmac } from 'node:crypto';
import { createStealthPayment, CURVE_ORDER, type StealthPayment } from '@wraith-pq/sdk';

const encoder = new TextEncoder();

/** HMAC-SHA256(secret, purpose || 0x00 || name || 0x00 || u64be(counter)). */
function draw(secret: Uint8Array, purpose: string, name: string, counter: number): Uint8Array {
  const tail = new Uint8Array(8);
  new DataView(tail.buffer).setBigUint64(0, BigInt(counter));
  const label = encoder.encode(`${purpose}\u0000${name}\u0000`);
  const input = new Uint8Array(label.length + 8);
  input.set(label);
  input.set(tail, label.length);
  return new Uint8Array(createHmac('sha256', secret).update(input).digest());
}

/**
 * The payment of lookup `counter` of `name` to `metaAddress` (either form; the form picks the scheme).
 * @example
 * const payment = gatewayPayment(secret, 'alice.wraith.eth', 7, meta);
 * payment.stealthAddress; // what the gateway answers for this lookup
 */
export function gatewayPayment(secret: Uint8Array, name: string, counter: number, metaAddress: Uint8Array): StealthPayment {
  const message = draw(secret, 'wraith-ens-gateway-m-v1', name, counter);
  // An HMAC output is a valid secp256k1 scalar except with probability ~2^-128; the next draws cover it.
  let esk = draw(secret, 'wraith-ens-gateway-esk-v1', name, counter);
  for (let retry = 1; !validScalar(esk); retry++) esk = draw(secret, `wraith-ens-gateway-esk-v1/${retry}`, name, counter);
  return createStealthPayment(metaAddress, { message, ephemeralSecretKey: esk });
}

/** 0 < k < n (secp256k1). */
export function validScalar(bytes: Uint8Array): boolean {
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  return value > 0n && value < CURVE_ORDER;
}

/** The keyed hash that stands for a requester's IP in the store (16 bytes; the IP is not kept). */
export function requesterKey(secret: Uint8Array, ip: string): Uint8Array {
  return new Uint8Array(createHmac('sha256', secret).update(`wraith-ens-gateway-requester-v1\u0000${ip}`).digest().subarray(0, 16));
}
