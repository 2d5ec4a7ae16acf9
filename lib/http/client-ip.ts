/**
 * Who the client is, for the per-IP rate limit (API.md "Cross-cutting behaviour").
 *
 * Route handlers cannot see the socket, so server.mjs writes the peer address into
 * `x-wraith-peer-ip`, replacing anything the client sent under that name, and says so through a
 * process flag. Without that flag (`next start`, `next dev`) the header could come from the
 * client, so it is ignored and every client shares one budget: a misdeployment fails closed
 * instead of letting clients pick their own rate-limit key. `X-Forwarded-For` is
 * client-controlled text: it is read only when `TRUST_PROXY=N` says N proxies in front of us
 * each append the address they saw, and then only the Nth entry from the right, the one the
 * outermost trusted proxy wrote. Entries further left are whatever the client claimed.
 */
import { isIP } from 'node:net';
import { peekProcessSingleton } from '../server/singleton.ts';

/** Set by server.mjs from `req.socket.remoteAddress`; never trusted from elsewhere. */
export const PEER_IP_HEADER = 'x-wraith-peer-ip';

/** Key used when no peer address is known (a handler called outside server.mjs). */
export const UNKNOWN_CLIENT = 'unknown';

/** Set to true by server.mjs (`Symbol.for('wraith.peerHeaderTrusted')` on globalThis). */
export const PEER_HEADER_TRUSTED_SLOT = 'peerHeaderTrusted';

function peerHeaderTrusted(): boolean {
  return peekProcessSingleton<boolean>(PEER_HEADER_TRUSTED_SLOT) === true;
}

/**
 * The rate-limit key of the request's client: its IP address, IPv4-mapped IPv6 unwrapped, and
 * IPv6 reduced to its /64 prefix (one subscriber usually holds a whole /64, so per-address
 * buckets would let a single client rotate through 2^64 of them).
 */
export function clientKey(headers: Headers, trustProxy: number): string {
  const peer = peerHeaderTrusted() ? parseIp(headers.get(PEER_IP_HEADER) ?? '') : undefined;
  let ip = peer;
  if (trustProxy > 0) {
    const forwarded = (headers.get('x-forwarded-for') ?? '')
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== '');
    // Fewer entries than trusted hops: the request did not come through every proxy, so none
    // of the entries is known to be genuine. Fall back to the peer.
    const claimed = forwarded.length >= trustProxy ? parseIp(forwarded[forwarded.length - trustProxy]!) : undefined;
    ip = claimed ?? peer;
  }
  return ip === undefined ? UNKNOWN_CLIENT : rateLimitKey(ip);
}

/** An IP address from a header entry (`1.2.3.4`, `1.2.3.4:80`, `[::1]:80`, `fe80::1%eth0`). */
export function parseIp(text: string): string | undefined {
  let s = text.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(s);
  if (bracketed) s = bracketed[1]!;
  else if (/^[\d.]+:\d+$/.test(s)) s = s.slice(0, s.lastIndexOf(':'));
  s = s.replace(/%.*$/, '').toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (mapped) s = mapped[1]!;
  return isIP(s) === 0 ? undefined : s;
}

function rateLimitKey(ip: string): string {
  if (isIP(ip) !== 6) return ip;
  return `${expandIpv6(ip).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address, as lowercase hex without leading zeros. */
function expandIpv6(ip: string): string[] {
  let text = ip;
  // A trailing dotted quad (::a.b.c.d) stands for the last two groups.
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    text = text.slice(0, quad.index) + ((a << 8) | b).toString(16) + ':' + ((c << 8) | d).toString(16);
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right].map((group) => parseInt(group, 16).toString(16));
}
