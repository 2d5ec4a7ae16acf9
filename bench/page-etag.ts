/**
 * The binary registry page's ETag (lib/service/registry-binary.ts `pageEtag`) against what it
 * replaced, SHA-256 of the whole encoded page (the reference), on 5,000-row pages of HTTP rows
 * and of chain events. The server computes one per page it serves; on a CPU without SHA
 * extensions the whole-page hash was about half the server's time per page (issue 17).
 */
import { createHash } from 'node:crypto';
import { bytesToHex, encodeAnnouncementPage } from '../sdk/src/index.ts';
import type { StoredAnnouncement } from '../lib/registry/store.ts';
import { pageEtag } from '../lib/service/registry-binary.ts';
import { measureInterleaved, printTable, type Measurement } from './harness.ts';

export function benchPageEtag(): Measurement[] {
  const random = (n: number) => crypto.getRandomValues(new Uint8Array(n));
  const rows = (chain: boolean): StoredAnnouncement[] =>
    Array.from({ length: 5000 }, (_, j) => ({
      id: j + 1,
      schemeId: 1000,
      ephemeralKey: random(1088),
      viewTag: j & 0xff,
      timestamp: 1_700_000_000 + j,
      channelId: null,
      txHash: `0x${bytesToHex(random(32))}`,
      amount: null,
      chain: chain ? 'ethereum' : null,
      stealthAddress: chain ? `0x${bytesToHex(random(20))}` : null,
      metadata: chain ? random(92) : null,
      blockNumber: chain ? 19_000_000 + j : null,
      logIndex: chain ? j % 200 : null,
      chainId: chain ? 1 : null,
    }));
  const http = rows(false);
  const chain = rows(true);
  const httpPage = encodeAnnouncementPage(http);
  const chainPage = encodeAnnouncementPage(chain);
  const wholePage = (page: Uint8Array) => createHash('sha256').update(page).digest('hex');
  const perPage = { opsPerCall: 1, unit: 'pages/s' };
  const measured = measureInterleaved([
    { name: 'pageEtag, 5,000 HTTP rows (ids)', fn: () => pageEtag(http), ...perPage },
    { name: 'pageEtag, 5,000 chain events (ids, positions, stealth addresses, notes)', fn: () => pageEtag(chain), ...perPage },
    { name: 'SHA-256 of the whole page of chain events (before)', fn: () => wholePage(chainPage), ...perPage },
    { name: 'SHA-256 of the whole page of HTTP rows (before; reference)', fn: () => wholePage(httpPage), ...perPage },
  ], { rounds: 5 });
  printTable('Binary page ETag (one 5,000-row page, one thread)', measured, measured.at(-1)!);
  return measured;
}
