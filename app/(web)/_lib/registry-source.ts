/**
 * The registry as a page source for `scanRegistry`: binary pages walked by the `after_id`
 * cursor until a short page says the end is reached.
 * @module
 */
import type { RegistryAnnouncement, RegistryPageSource } from '@wraith-pq/sdk';
import { announcementPage } from './api';

/**
 * Rows per request: the server's largest binary page (5.5 MB), so full pages are immutable and
 * a million announcements take 200 requests, not 1,000.
 */
export const PAGE_SIZE = 5000;

/**
 * Reads one page ahead: the next full page's request is sent before the current page is handed
 * to the scanner, so receiving (the browser's transport, the slow part) never waits for
 * scanning. The cursor of a full page is its last id, known as soon as it arrives.
 */
export const registryPages: RegistryPageSource<RegistryAnnouncement> = async function* ({ afterId, signal }) {
  // A read-ahead that is never awaited (the scan was cancelled) must not surface as an unhandled rejection.
  const ahead = (cursor: number) => {
    const page = announcementPage(cursor, PAGE_SIZE, signal);
    page.catch(() => {});
    return page;
  };
  let next = ahead(afterId);
  for (;;) {
    const page = await next;
    const full = page.length === PAGE_SIZE;
    if (full) next = ahead(page[page.length - 1]!.id);
    if (page.length > 0) yield page;
    if (!full) return;
  }
};
