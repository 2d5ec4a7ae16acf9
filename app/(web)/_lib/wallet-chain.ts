/**
 * Which chain a wallet is on, asking it to change (EIP-3326 `wallet_switchEthereumChain`, and
 * EIP-3085 `wallet_addEthereumChain` when it answers 4902, "unrecognized chain"), and the guard
 * that keeps a payment or a withdrawal on the chain the page showed: a wallet may change chain at
 * any moment (the user, another tab), and a transaction signed for the wrong chain moves money
 * where the recipient, or the page, does not look.
 * @module
 */
import { parseTransaction, type Hex } from 'viem';
import { addEthereumChainParameter, chainInfo, chainLabel, type ChainInfo } from './chains';
import type { Eip1193Provider } from './eip6963';

/** EIP-1193 "User Rejected Request". */
const USER_REJECTED = 4001;
/** EIP-3326: the wallet does not know the chain; add it with `wallet_addEthereumChain` first. */
const UNRECOGNIZED_CHAIN = 4902;

/** The wallet is on another chain than the one the page is about to read, sign or send on. Nothing was signed or sent. */
export class WrongChainError extends Error {
  override name = 'WrongChainError';
  constructor(
    readonly walletName: string,
    readonly expected: number,
    readonly actual: number,
  ) {
    const [want, got] = [chainLabel(chainInfo(expected)), chainLabel(chainInfo(actual))];
    super(`${walletName} is on ${got} now, not on ${want}: nothing was signed or sent. Switch it to ${want} and try again.`);
  }
}

/** The chain the provider is on now (`eth_chainId`). */
export async function walletChainId(provider: Eip1193Provider): Promise<number> {
  return Number(BigInt((await provider.request({ method: 'eth_chainId' })) as string));
}

/** Throws {@link WrongChainError} unless the provider is on chain `expected` right now. */
export async function assertWalletChain(provider: Eip1193Provider, walletName: string, expected: number): Promise<void> {
  const actual = await walletChainId(provider);
  if (actual !== expected) throw new WrongChainError(walletName, expected, actual);
}

/** The EIP-1193 error code of a wallet's refusal (some wallets nest it under `data.originalError`). */
function codeOf(error: unknown): number | undefined {
  const e = error as { code?: unknown; data?: { originalError?: { code?: unknown } } } | null;
  const code = e?.code ?? e?.data?.originalError?.code;
  return typeof code === 'number' ? code : undefined;
}

/**
 * Ask the wallet to switch to `target`; a wallet that does not know the chain is asked to add it
 * (with viem's public RPC for it), then to switch. Resolves once the wallet reports `target`;
 * throws an Error that says what to do otherwise.
 */
export async function switchWalletChain(provider: Eip1193Provider, walletName: string, target: ChainInfo): Promise<void> {
  const chainId = `0x${target.id.toString(16)}`;
  const label = chainLabel(target);
  const refused = (error: unknown) =>
    new Error(
      codeOf(error) === USER_REJECTED
        ? `${walletName} did not switch to ${label}: the request was declined. Nothing was read or signed there.`
        : `${walletName} could not switch to ${label}: ${(error as Error)?.message ?? 'no reason given'}. Switch it in the wallet, then try again.`,
    );
  try {
    await provider.request({ method: 'wallet_switchEthereumChain', params: [{ chainId }] });
  } catch (error) {
    if (codeOf(error) !== UNRECOGNIZED_CHAIN) throw refused(error);
    const parameter = addEthereumChainParameter(target);
    if (parameter === null) throw new Error(`${walletName} does not know ${label}, and this page knows no public RPC for it: add the chain to your wallet, then switch to it.`);
    try {
      await provider.request({ method: 'wallet_addEthereumChain', params: [parameter] });
      // Some wallets switch as they add; asking again costs nothing and covers those that do not.
      await provider.request({ method: 'wallet_switchEthereumChain', params: [{ chainId }] });
    } catch (addError) {
      throw refused(addError);
    }
  }
  await assertWalletChain(provider, walletName, target.id);
}

/** Methods that sign or send: each waits for the wallet to confirm it is still on the expected chain. */
const SIGNING_METHODS = new Set(['eth_chainId', 'eth_sendTransaction', 'eth_sendRawTransaction', 'wallet_sendTransaction', 'wallet_sendCalls', 'eth_signTransaction']);

/**
 * `provider`, bound to chain `expected`: before anything is signed or sent through it (and every
 * time the chain id is asked, which viem and the SDK do right before signing) the wallet's chain
 * is read again, and a wallet on another chain gets a {@link WrongChainError} instead of the
 * request. A raw transaction is also refused when it was signed for another chain. Reads pass
 * through unchecked: the pages check the chain once before each read of balances.
 */
export function chainBoundProvider(provider: Eip1193Provider, walletName: string, expected: number): Eip1193Provider {
  return {
    async request(args) {
      if (SIGNING_METHODS.has(args.method)) {
        await assertWalletChain(provider, walletName, expected);
        if (args.method === 'eth_sendRawTransaction') {
          const [serialized] = (args.params ?? []) as Hex[];
          const signedFor = serialized ? parseTransaction(serialized).chainId : undefined;
          if (signedFor !== expected) throw new WrongChainError(walletName, expected, signedFor ?? 0);
        }
      }
      return provider.request(args);
    },
    ...(provider.on ? { on: provider.on.bind(provider) } : {}),
    ...(provider.removeListener ? { removeListener: provider.removeListener.bind(provider) } : {}),
  };
}
