/** A message for the user: errors are announced at once (role=alert), the rest politely. */
import type { ReactNode } from 'react';

export function Notice({ kind, children }: { kind: 'error' | 'success' | 'info'; children: ReactNode }) {
  return (
    <div className={`notice ${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {children}
    </div>
  );
}
