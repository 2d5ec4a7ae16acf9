/**
 * The registry as a page source for `scanRegistry`: binary pages walked by the `after_id`
 * cursor until a short page says the end is reached.
 * @module
 */
import type { RegistryAnnouncement, RegistryPageSource } from '@wraith-pq/sdk';
import { announcementPage } from './api';

/**
 * Rows per request: the server's largest binary page (5.5 MB), so full pages are immutable and
 * cacheable, and a million announcements take 200 requests, not 1,000.
 */
export const PAGE_SIZE = 5000;

export const registryPages: RegistryPageSource<RegistryAnnouncement> = async function* ({ afterId, signal }) {
  let cursor = afterId;
  for (;;) {
    const page = await announcementPage(cursor, PAGE_SIZE, signal);
    if (page.length > 0) {
      yield page;
      cursor = page[page.length - 1]!.id;
    }
    if (page.length < PAGE_SIZE) return;
  }
};
