/**
 * Debian's Chromium driven by playwright-core (no browser downloads here). `.ci/run` installs it;
 * on a machine without it the browser tests are skipped, unless REQUIRE_BROWSER=1 (set by CI)
 * turns the absence into a failure.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const chromiumAvailable = existsSync(CHROMIUM_PATH);
export const skipBrowser = !chromiumAvailable && process.env.REQUIRE_BROWSER !== '1';

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
      '--no-first-run',
    ],
  });
}
