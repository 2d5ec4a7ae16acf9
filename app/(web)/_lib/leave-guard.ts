/**
 * Ask before leaving a page that holds something not yet kept (new keys not saved): on reload,
 * closing the tab or typing another address (`beforeunload`, where the browser asks in its own
 * words), and on a click of a link inside the app (Next.js navigates without unloading, so the
 * click is caught before React's router sees it and the person is asked with `confirm`).
 * @module
 */
import { useEffect } from 'react';

export function useLeaveGuard(active: boolean, question: string): void {
  useEffect(() => {
    if (!active) return;
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      // Chromium before 119 and Safari want returnValue set as well.
      event.returnValue = '';
    };
    const onClick = (event: MouseEvent) => {
      if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
      const link = (event.target as Element | null)?.closest?.('a[href]');
      if (!(link instanceof HTMLAnchorElement) || link.target === '_blank' || link.hasAttribute('download')) return;
      const url = new URL(link.href, window.location.href);
      if (url.origin !== window.location.origin || (url.pathname === window.location.pathname && url.search === window.location.search)) return;
      if (window.confirm(question)) return;
      // Stopped in the capture phase at the document: neither the router nor the browser follows it.
      event.preventDefault();
      event.stopPropagation();
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    document.addEventListener('click', onClick, true);
    return () => {
      window.removeEventListener('beforeunload', onBeforeUnload);
      document.removeEventListener('click', onClick, true);
    };
  }, [active, question]);
}
