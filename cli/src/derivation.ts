/**
 * Fresh withdrawal destinations from a derivation rule (`withdraw --to-derive <path template>`):
 * the addresses of the user's own HD wallet (BIP-32), one index per payment, so that no two
 * payments are emptied into one address and the user need not list addresses by hand.
 *
 * The wallet comes from WRAITH_DESTINATION_KEY, else a hidden prompt (never an argument):
 *
 * - an extended public key (`xpub…`, BIP-32): addresses only, no key that spends is ever handed
 *   over. It derives non-hardened children only, so the template is the path below it, e.g.
 *   `0/{i}` under the account key `m/44'/60'/0'` a wallet exports;
 * - a BIP-39 recovery phrase (English, checksum verified): the template is the full path, e.g.
 *   `m/44'/60'/0'/0/{i}` (what MetaMask and most wallets use). Private keys are computed in memory
 *   to get the addresses, and neither kept, written nor printed.
 *
 * `{i}` is the payment's index; which index each payment was given is kept in the encrypted
 * history before anything is signed (src/history-file.ts), so a resumed run gives it the same one.
 * @module
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { mnemonicToSeedSync, validateMnemonic } from '@scure/bip39';
import { wordlist as english } from '@scure/bip39/wordlists/english.js';
import { bytesToHex, getAddress, type Address } from 'viem';
import { HDKey, hdKeyToAccount, publicKeyToAddress } from 'viem/accounts';
import { CliError, UsageError } from './errors.js';

export type DerivationRule = {
  /** The template as given (`m/44'/60'/0'/0/{i}`): recorded with each index, never the key. */
  template: string;
  kind: 'xpub' | 'mnemonic';
  /** The address at index `i`. */
  addressAt(index: number): Address;
};

const INDEX = '{i}';
/** BIP-32: indices below 2^31 are non-hardened. */
const HARDENED = 0x8000_0000;

/** Check a path template: `m/…` segments of digits (hardened with `'`), `{i}` exactly once. */
export function checkTemplate(template: string, usage: string): string {
  const trimmed = template.trim();
  const segments = trimmed.replace(/^m\//, '').split('/');
  const placeholders = segments.filter((s) => s === INDEX || s === `${INDEX}'`).length;
  const valid = segments.every((s) => /^\d{1,10}'?$/.test(s) || s === INDEX || s === `${INDEX}'`) && segments.every((s) => !/^\d/.test(s) || Number.parseInt(s, 10) < HARDENED);
  if (!valid || placeholders !== 1 || trimmed.split(INDEX).length !== 2) {
    throw new UsageError(`--to-derive must be a BIP-32 path with {i} once where the payment's index goes, e.g. "m/44'/60'/0'/0/{i}" (recovery phrase) or "0/{i}" (extended public key)`, `usage: ${usage}`);
  }
  return trimmed;
}

/** A BIP-39 English phrase with a valid checksum, normalised; null when `text` is not one. */
function recoveryPhrase(text: string): string | null {
  const phrase = text.trim().toLowerCase().split(/\s+/).join(' ');
  return validateMnemonic(phrase, english) ? phrase : null;
}

/** The address of a compressed public key (BIP-32 gives compressed keys; an address hashes the uncompressed one). */
function addressOfCompressed(publicKey: Uint8Array): Address {
  return publicKeyToAddress(bytesToHex(secp256k1.Point.fromBytes(publicKey).toBytes(false)));
}

/**
 * The rule of `template` over `key` (an extended public key or a recovery phrase). Throws a
 * one-line error that never quotes the key.
 */
export function derivationRule(key: string, template: string, usage: string): DerivationRule {
  const checked = checkTemplate(template, usage);
  const pathAt = (index: number) => `m/${checked.replace(/^m\//, '').replace(INDEX, String(index))}`;
  const trimmed = key.trim();
  if (/^xpub[1-9A-HJ-NP-Za-km-z]{100,112}$/.test(trimmed)) {
    if (checked.includes("'")) {
      throw new UsageError("an extended public key derives non-hardened children only: give --to-derive the path below it, e.g. \"0/{i}\" under the account key m/44'/60'/0'", `usage: ${usage}`);
    }
    let root: HDKey;
    try {
      root = HDKey.fromExtendedKey(trimmed);
    } catch {
      throw new CliError('INVALID_DESTINATION_KEY', 'WRAITH_DESTINATION_KEY is not a valid extended public key', 'export the account\'s xpub from your wallet again');
    }
    return { template: checked, kind: 'xpub', addressAt: (index) => addressOfCompressed(root.derive(pathAt(index)).publicKey!) };
  }
  const phrase = recoveryPhrase(trimmed);
  if (phrase === null) {
    throw new CliError('INVALID_DESTINATION_KEY', 'WRAITH_DESTINATION_KEY is neither an extended public key (xpub…) nor a BIP-39 English recovery phrase with a valid checksum', 'check the words (a typo would send the payments to someone else\'s wallet), or use the account\'s xpub');
  }
  if (!checked.startsWith('m/')) {
    throw new UsageError("with a recovery phrase, --to-derive is the full path from the root, e.g. \"m/44'/60'/0'/0/{i}\"", `usage: ${usage}`);
  }
  const root = HDKey.fromMasterSeed(mnemonicToSeedSync(phrase)); // no BIP-39 passphrase
  return { template: checked, kind: 'mnemonic', addressAt: (index) => getAddress(hdKeyToAccount(root, { path: pathAt(index) as `m/44'/60'/${string}` }).address) };
}
