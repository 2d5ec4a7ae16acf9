/**
 * The app's route files as found on disk, so suites that cover "every route" notice a new one
 * without a list to keep up to date.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const APP_DIR = fileURLToPath(new URL('../../app', import.meta.url));

/** Absolute paths of every `route.ts` under app/. */
export function routeFiles(dir = APP_DIR): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return routeFiles(path);
    return name === 'route.ts' ? [path] : [];
  });
}

/** The URL segments of a route file's directory; route groups `(x)` add none. */
export function routeSegments(file: string): string[] {
  return relative(APP_DIR, file).split(sep).slice(0, -1).filter((segment) => !/^\(.*\)$/.test(segment));
}
