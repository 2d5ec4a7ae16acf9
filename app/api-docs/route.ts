/**
 * GET /api-docs: the API reference for people, server-rendered from the OpenAPI document
 * (lib/openapi/html.ts). Plain HTML and one style element, no scripts, so it needs nothing but
 * the page CSP of next.config.mjs. Rendered once at build time: the document is fixed per build.
 */
import { openApiDocument } from '@/lib/openapi/document.ts';
import { renderApiDocsHtml } from '@/lib/openapi/html.ts';

export const dynamic = 'force-static';

export function GET(): Response {
  return new Response(renderApiDocsHtml(openApiDocument()), {
    headers: { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'public, max-age=300' },
  });
}
