import type { Metadata, Viewport } from 'next';
import Link from 'next/link';
import { connection } from 'next/server';
import type { ReactNode } from 'react';
import { SiteNav } from './(web)/_components/site-nav';
import './globals.css';

export const metadata: Metadata = {
  title: { default: 'Wraith — post-quantum stealth payments', template: '%s · Wraith' },
  description: 'Pay a one-time address nobody can link to the recipient, with ML-KEM-768 viewing keys.',
};

export const viewport: Viewport = {
  width: 'device-width',
  initialScale: 1,
  colorScheme: 'light dark',
};

/**
 * Rendered per request: each response carries its own CSP nonce (proxy.ts), which Next.js reads
 * from the request and puts on every script it renders. A page built once could not carry one.
 */
export default async function RootLayout({ children }: { children: ReactNode }) {
  await connection();
  return (
    <html lang="en">
      <body>
        <a className="skip-link" href="#main">
          Skip to content
        </a>
        <header className="site-header">
          <div className="site-header-inner">
            <Link className="brand" href="/">
              <span aria-hidden="true">◈</span> Wraith
            </Link>
            <SiteNav />
          </div>
        </header>
        <main id="main" tabIndex={-1}>
          {children}
        </main>
        <footer className="site-footer">
          Keys are generated and used in this browser only; the server sees public data (meta-addresses, names,
          announcements). <a href="/api-docs">API docs</a> · <a href="/health">Health</a>
        </footer>
      </body>
    </html>
  );
}
