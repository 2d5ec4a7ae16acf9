/**
 * Wraith's HTTP server: Next.js behind a small node:http front.
 *
 * Why not `next start`:
 * - Route handlers cannot see the socket, and the per-IP rate limit (API.md "Cross-cutting
 *   behaviour") must key on the real peer, not on a header the client writes. This front
 *   deletes any client-sent `x-wraith-peer-ip` and sets it to `req.socket.remoteAddress`;
 *   lib/http/client-ip.ts reads it (and X-Forwarded-For only with TRUST_PROXY=N).
 * - Graceful shutdown: on SIGTERM/SIGINT stop accepting connections, let in-flight requests
 *   finish (at most SHUTDOWN_TIMEOUT_MS, default 10 s), run the app's shutdown hooks (closing
 *   the registry), then exit. A deploy or Ctrl-C never cuts an acknowledged publish short.
 *
 * Usage: `node server.mjs` after `next build`. PORT (default 3001) and HOSTNAME (default
 * 0.0.0.0) choose the address; every other setting is validated by instrumentation.ts at start.
 * Plain JavaScript on purpose: this file is not compiled or bundled.
 */
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';

process.env.NODE_ENV ??= 'production';
process.env.NEXT_TELEMETRY_DISABLED ??= '1';

const projectDir = fileURLToPath(new URL('.', import.meta.url));
// The .env files Next.js would load (.env, .env.production, .env.local, ...), loaded now so
// PORT and HOSTNAME below see them too. Variables already in the environment win.
const { default: nextEnv } = await import('@next/env');
const { loadEnvConfig } = nextEnv;
loadEnvConfig(projectDir, process.env.NODE_ENV === 'development', { info: () => {}, error: (...args) => console.error(...args) });

/** Written here, read by lib/http/client-ip.ts; never accepted from the client. */
const PEER_IP_HEADER = 'x-wraith-peer-ip';
/** Methods Next.js route handlers serve; anything else under the API gets a JSON 405 here. */
const ROUTE_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

function log(level, msg, fields = {}) {
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields })}\n`);
}

function fail(message) {
  process.stderr.write(`wraith: ${message}\n`);
  process.exit(1);
}

function integerSetting(name, fallback, max) {
  const text = process.env[name]?.trim();
  if (text === undefined || text === '') return fallback;
  if (!/^\d+$/.test(text) || Number(text) > max) fail(`Invalid configuration:\n  - ${name}: must be a whole number from 0 to ${max}`);
  return Number(text);
}

const port = integerSetting('PORT', 3001, 65535);
const hostname = process.env.HOSTNAME?.trim() || '0.0.0.0';
const shutdownTimeoutMs = integerSetting('SHUTDOWN_TIMEOUT_MS', 10_000, 600_000);
const dev = process.env.NODE_ENV === 'development';

// Tell lib/http/client-ip.ts that x-wraith-peer-ip is written by this server, not the client.
globalThis[Symbol.for('wraith.peerHeaderTrusted')] = true;

const { default: next } = await import('next');
const app = next({ dev, dir: projectDir, hostname, port });
const handle = app.getRequestHandler();
await app.prepare();
await startupChecks();

/**
 * Wait for instrumentation.ts `register()` (lib/server/boot.ts) to finish: it validates the
 * configuration (exiting with status 1 on a bad value) and opens the registry. In production
 * Next.js starts it in the background, so the port opens only once it set its flag.
 */
async function startupChecks() {
  const booted = Symbol.for('wraith.booted');
  const deadline = Date.now() + 60_000;
  while (globalThis[booted] !== true) {
    if (Date.now() > deadline) {
      log('warn', 'start-up checks did not report back; listening anyway');
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

let inFlight = 0;
let shuttingDown = false;
/** LOG_LEVEL=debug (validated by lib/config.ts, which reads it the same way): one line as each request starts. */
const logRequestStarts = (process.env.LOG_LEVEL ?? '').trim().toLowerCase() === 'debug';
let onIdle = () => {};

/** Remove every client-sent copy of the peer header, then set the real peer. */
function setPeer(req) {
  delete req.headers[PEER_IP_HEADER];
  for (let i = req.rawHeaders.length - 2; i >= 0; i -= 2) {
    if (req.rawHeaders[i].toLowerCase() === PEER_IP_HEADER) req.rawHeaders.splice(i, 2);
  }
  const peer = req.socket.remoteAddress;
  if (peer) {
    req.headers[PEER_IP_HEADER] = peer;
    req.rawHeaders.push(PEER_IP_HEADER, peer);
  }
}

/** Paths answered by the API's route handlers (app/api, app/health), unknown ones included. */
function isApiPath(url) {
  const path = (url ?? '/').split('?')[0];
  return path === '/health' || path.startsWith('/health/') || path === '/api' || path.startsWith('/api/');
}

/** API paths whose percent-encoding Next.js cannot decode (it would answer a plain-text 500). */
function hasMalformedPath(url) {
  try {
    decodeURIComponent((url ?? '/').split('?')[0]);
    return false;
  } catch {
    return true;
  }
}

/**
 * A JSON error answered here, for requests Next.js cannot route: API.md "Errors" wants every
 * error under the API in its JSON shape, with the API's security headers and a request id.
 */
function sendError(req, res, status, code, message, headers = {}) {
  const requestId = crypto.randomUUID();
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Cache-Control': 'no-store',
    // The API's headers (lib/http/security-headers.ts, lib/http/cors.ts), repeated here because
    // this file is not compiled.
    'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Permissions-Policy': 'accelerometer=(), camera=(), geolocation=(), gyroscope=(), magnetometer=(), microphone=(), payment=(), usb=(), interest-cohort=()',
    'Cross-Origin-Opener-Policy': 'same-origin',
    ...corsHeaders(req.headers.origin),
    'x-request-id': requestId,
    ...headers,
  });
  res.end(req.method === 'HEAD' ? undefined : JSON.stringify({ error: { code, message } }));
  log('info', 'request', { request_id: requestId, method: req.method, route: null, status, duration_ms: 0, error_code: code });
}

/** ALLOWED_ORIGINS (validated at start-up by lib/config.ts): '*' or lowercase origins. */
const allowedOrigins = (() => {
  const origins = (process.env.ALLOWED_ORIGINS ?? '').split(',').map((o) => o.trim().toLowerCase().replace(/\/+$/, '')).filter(Boolean);
  return origins.length === 0 || origins.includes('*') ? '*' : origins;
})();

/** CORS headers of an answer written here (lib/http/cors.ts does it for the route handlers). */
function corsHeaders(origin) {
  if (typeof origin !== 'string' || (allowedOrigins !== '*' && !allowedOrigins.includes(origin.toLowerCase()))) return { Vary: 'Origin' };
  return { Vary: 'Origin', 'Access-Control-Allow-Origin': allowedOrigins === '*' ? '*' : origin, 'Access-Control-Expose-Headers': 'x-request-id, retry-after' };
}

const server = createServer((req, res) => {
  inFlight++;
  // The method and the count only: no path or query, which would say which pages a client reads.
  if (logRequestStarts) log('debug', 'request started', { method: req.method, in_flight: inFlight });
  res.on('close', () => {
    inFlight--;
    if (inFlight === 0) onIdle();
  });
  if (shuttingDown) res.setHeader('Connection', 'close');
  setPeer(req);
  if (isApiPath(req.url)) {
    if (!ROUTE_METHODS.has(req.method ?? '')) {
      sendError(req, res, 405, 'METHOD_NOT_ALLOWED', 'This method is not supported by the API.', { Allow: 'GET, HEAD, POST, OPTIONS' });
      return;
    }
    if (hasMalformedPath(req.url)) {
      sendError(req, res, 400, 'VALIDATION_ERROR', 'The request path has malformed percent-encoding.');
      return;
    }
  }
  handle(req, res).catch((error) => {
    log('error', 'unhandled error in request handler', { error_name: error?.name, error_message: String(error?.message ?? error) });
    if (!res.headersSent) {
      sendError(req, res, 500, 'INTERNAL_ERROR', 'Internal server error.');
    } else {
      res.destroy();
    }
  });
});

server.on('clientError', (error, socket) => {
  // Malformed HTTP (or headers over Node's limit): answer in JSON when the socket still takes
  // it, never echoing the input.
  if (socket.writable && !socket.writableEnded && error.code !== 'ECONNRESET') {
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    const body = JSON.stringify({
      error: tooLarge
        ? { code: 'VALIDATION_ERROR', message: 'The request headers are too large.' }
        : { code: 'VALIDATION_ERROR', message: 'Malformed HTTP request.' },
    });
    const status = tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request';
    socket.end(`HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  } else {
    socket.destroy(error);
  }
});

server.listen(port, hostname, () => {
  const address = server.address();
  log('info', 'listening', { url: `http://${hostname}:${typeof address === 'object' && address ? address.port : port}`, dev });
});

async function runShutdownHooks() {
  const hooks = globalThis[Symbol.for('wraith.shutdownHooks')];
  if (!(hooks instanceof Map)) return;
  for (const hook of hooks.values()) {
    try {
      await hook();
    } catch (error) {
      log('error', 'shutdown hook failed', { error_message: String(error?.message ?? error) });
    }
  }
  hooks.clear();
}

async function shutdown(signal) {
  if (shuttingDown) return;
  shuttingDown = true;
  log('info', 'shutting down', { signal, in_flight: inFlight });
  server.close();
  server.closeIdleConnections();
  const drained = await new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), shutdownTimeoutMs);
    onIdle = () => {
      clearTimeout(timer);
      resolve(true);
    };
    if (inFlight === 0) onIdle();
  });
  if (!drained) {
    log('warn', 'shutdown timeout: closing remaining connections', { in_flight: inFlight });
    server.closeAllConnections();
  }
  await runShutdownHooks();
  log('info', 'stopped', { drained });
  process.exit(drained ? 0 : 1);
}

process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
