/**
 * Wallet discovery by EIP-6963 ("Multi Injected Provider Discovery"): every injected wallet
 * answers an `eip6963:requestProvider` event with an `eip6963:announceProvider` event carrying
 * its name, icon and EIP-1193 provider. No `window.ethereum` race between extensions, and no
 * third-party connector SDK: the page talks to the provider the user picks and nothing else.
 * @module
 */

/** An EIP-1193 provider: JSON-RPC requests, answered by the wallet (and its node). */
export type Eip1193Provider = {
  request(args: { method: string; params?: readonly unknown[] | object }): Promise<unknown>;
  on?(event: string, listener: (...args: unknown[]) => void): void;
  removeListener?(event: string, listener: (...args: unknown[]) => void): void;
};

/** EIP-6963 `EIP6963ProviderInfo`. */
export type WalletInfo = {
  /** Unique per page session (UUIDv4). */
  uuid: string;
  name: string;
  /** A data URI (EIP-6963: an image of at least 96×96 px). */
  icon: string;
  /** Reverse-DNS id of the wallet (`io.metamask`). */
  rdns: string;
};

export type DiscoveredWallet = { info: WalletInfo; provider: Eip1193Provider };

const ANNOUNCE = 'eip6963:announceProvider';
const REQUEST = 'eip6963:requestProvider';

function isAnnouncement(detail: unknown): detail is DiscoveredWallet {
  const d = detail as Partial<DiscoveredWallet> | null;
  return (
    typeof d === 'object' &&
    d !== null &&
    typeof d.info?.uuid === 'string' &&
    typeof d.info.name === 'string' &&
    typeof d.provider === 'object' &&
    d.provider !== null &&
    typeof d.provider.request === 'function'
  );
}

/**
 * Collect the wallets that announce themselves, now and later (a wallet injected after the page
 * loaded announces on its own). Calls `onChange` with the list (one entry per uuid, in order of
 * arrival) each time it grows; returns the function that stops listening.
 *
 * @example
 * const stop = watchWallets((wallets) => render(wallets.map((w) => w.info.name)));
 */
export function watchWallets(onChange: (wallets: DiscoveredWallet[]) => void): () => void {
  const byUuid = new Map<string, DiscoveredWallet>();
  const listener = (event: Event) => {
    const detail = (event as CustomEvent<unknown>).detail;
    if (!isAnnouncement(detail) || byUuid.has(detail.info.uuid)) return;
    byUuid.set(detail.info.uuid, { info: detail.info, provider: detail.provider });
    onChange([...byUuid.values()]);
  };
  window.addEventListener(ANNOUNCE, listener);
  window.dispatchEvent(new Event(REQUEST));
  return () => window.removeEventListener(ANNOUNCE, listener);
}
