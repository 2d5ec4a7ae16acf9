import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    alias: {
      // The more specific entry first: an alias also matches its own subpaths.
      '@wraith-pq/sdk/evm': fileURLToPath(new URL('./sdk/src/evm/index.ts', import.meta.url)),
      '@wraith-pq/sdk/sui': fileURLToPath(new URL('./sdk/src/sui/index.ts', import.meta.url)),
      '@wraith-pq/sdk': fileURLToPath(new URL('./sdk/src/index.ts', import.meta.url)),
      // tsconfig.json's `@/*`: route files import lib/ as `@/lib/...`. Matches `@/...` only, not `@scope/...`.
      '@': fileURLToPath(new URL('.', import.meta.url)).replace(/\/$/, ''),
    },
  },
  test: {
    include: ['sdk/test/**/*.test.ts', 'tests/**/*.test.ts'],
    // Heavier suites (100k-announcement equivalence, ...) run in CI: WRAITH_HEAVY=1 (.ci/run).
    exclude: process.env.WRAITH_HEAVY === '1' ? ['**/node_modules/**'] : ['**/node_modules/**', '**/*.heavy.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
