'use client';
/** An error in a sentence (error-message.ts), with what the sentence left out behind "Technical details". */
import type { ReactNode } from 'react';
import { Notice } from './notice';

export type ShownError = { message: string; details: string | null };

export function ErrorNotice({ error, children }: { error: ShownError; children?: ReactNode }) {
  return (
    <Notice kind="error">
      <span data-testid="error-message">{error.message}</span>
      {children}
      {error.details && (
        <details className="more">
          <summary>Technical details</summary>
          <pre className="error-details">{error.details}</pre>
        </details>
      )}
    </Notice>
  );
}
