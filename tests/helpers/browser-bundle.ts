/** A source entry bundled for browsers (IIFE; `globalName` exposes its exports on window). */
import { build } from 'esbuild';

export async function bundleForBrowser(entry: URL, options: { globalName?: string; minify?: boolean } = {}): Promise<string> {
  const result = await build({
    entryPoints: [entry.pathname],
    bundle: true,
    platform: 'browser',
    format: 'iife',
    minify: options.minify ?? false,
    ...(options.globalName ? { globalName: options.globalName } : {}),
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}
