/**
 * Serve msw request handlers (e.g. the Sui full node of tests/helpers/msw-sui.ts) on a real
 * loopback port, so a server running in another process can call them: the black-box client
 * tests point `SUI_RPC_URL` at it.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getResponse, type RequestHandler } from 'msw';

export type LoopbackHandlers = { url: string; close(): Promise<void> };

async function toRequest(message: IncomingMessage, origin: string): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const chunk of message) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(message.headers)) if (typeof value === 'string') headers.set(name, value);
  const hasBody = message.method !== 'GET' && message.method !== 'HEAD';
  return new Request(new URL(message.url ?? '/', origin), {
    method: message.method ?? 'GET',
    headers,
    ...(hasBody ? { body: Buffer.concat(chunks) } : {}),
  });
}

/**
 * Start an HTTP server on 127.0.0.1 answering with `handlers(url)`; requests no handler
 * takes get 404. The handlers are built for the final URL, which is only known once listening.
 */
export async function serveHandlers(handlers: (url: string) => RequestHandler[]): Promise<LoopbackHandlers> {
  let active: RequestHandler[] = [];
  let origin = '';
  const server = createServer((message, reply) => {
    void (async () => {
      const response = (await getResponse(active, await toRequest(message, origin))) ?? new Response('no handler', { status: 404 });
      reply.writeHead(response.status, Object.fromEntries(response.headers));
      reply.end(Buffer.from(await response.arrayBuffer()));
    })().catch((error: unknown) => {
      reply.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  active = handlers(`${origin}/`);
  return { url: `${origin}/`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
