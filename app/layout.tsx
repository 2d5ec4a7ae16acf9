import type { ReactNode } from 'react';

export const metadata = {
  title: 'Wraith — post-quantum stealth payments',
  description: 'Pay a one-time address nobody can link to the recipient, with ML-KEM-768 viewing keys.',
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body style={{ fontFamily: 'system-ui, sans-serif', maxWidth: 720, margin: '2rem auto', padding: '0 1rem' }}>
        {children}
      </body>
    </html>
  );
}
