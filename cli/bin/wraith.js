#!/usr/bin/env node
// The `wraith` executable: loads the compiled command line (dist/, built by `npm run build`).
// A file of its own so npm links the bin at install time, before dist/ exists.
import('../dist/main.js').catch((error) => {
  const notBuilt = error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/main.js');
  process.stderr.write(
    notBuilt
      ? 'wraith: NOT_BUILT: the command line is not compiled — run `npm run build` (or `npm run build -w @wraith-pq/cli`) first\n'
      : `wraith: INTERNAL: ${String(error?.message ?? error).split('\n', 1)[0]} — please report this\n`,
  );
  process.exitCode = 1;
});
