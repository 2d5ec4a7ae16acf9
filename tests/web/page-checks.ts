/**
 * What every page and state of the web app must pass, for the browser tests: no protocol word on
 * the main path (issue 30: they belong behind "Technical details"), no axe-core violation, in the
 * light and the dark scheme, with a screenshot of each (harness.ts `screenshots`).
 */
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { screenshots } from './harness.ts';

/** Words a person paying or being paid should not have to read (issue 30, items 3 and 5). */
export const PROTOCOL_WORDS = [
  'scheme 1000',
  'ML-KEM',
  'secp256k1',
  'view tag',
  'base units',
  'Web Worker',
  'WebAssembly',
  'PBKDF2',
  'AES-256-GCM',
  'FIPS 203',
  'ciphertext',
  'EIP-6963',
] as const;

const axeSource = (createRequire(import.meta.url)('axe-core') as { source: string }).source;

/**
 * The protocol words in the page's rendered text. `innerText` is what is laid out: the content of
 * a closed `<details>` (all but its summary) and anything `display: none` are not in it.
 */
export async function protocolWordsShown(page: Page): Promise<string[]> {
  const text = await page.evaluate(() => document.body.innerText);
  return PROTOCOL_WORDS.filter((word) => text.toLowerCase().includes(word.toLowerCase())).map((word) => {
    const at = text.toLowerCase().indexOf(word.toLowerCase());
    return `"${word}" in "…${text.slice(Math.max(0, at - 60), at + word.length + 60).replace(/\s+/g, ' ')}…"`;
  });
}

/**
 * axe-core's violations on the page (WCAG 2.x A and AA and best practices), one line each. The
 * script is evaluated through the browser's debugging protocol, which the page's CSP does not
 * govern: nothing in the page's own policy is loosened for the test.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  const results = (await page.evaluate(() =>
    (window as unknown as { axe: { run: (context: Document, options: object) => Promise<unknown> } }).axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] },
    }),
  )) as { violations: { id: string; impact: string; nodes: { target: string[] }[] }[] };
  return results.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

export type PageCheck = { state: string; scheme: 'light' | 'dark'; words: string[]; violations: string[] };

/**
 * One state of one page, checked in both schemes (screenshots `<state>-light-…` and
 * `<state>-dark-…`, desktop and phone). Returns what failed; the caller asserts it is empty, so
 * a journey reports every page that fails at once.
 */
export async function checkPage(page: Page, state: string): Promise<PageCheck[]> {
  const failed: PageCheck[] = [];
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const [words, violations] = [await protocolWordsShown(page), await axeViolations(page)];
    await screenshots(page, `${state}-${scheme}`);
    if (words.length > 0 || violations.length > 0) failed.push({ state, scheme, words, violations });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  return failed;
}
