/**
 * A payment saved between creating it and announcing it (`wraith pay … --save f`, then
 * `wraith pay --payment f --announce …` once the transfer is made). It holds the public parts
 * and the shared secret `K`, which seals the note: `K` cannot spend the funds but links the
 * payment to its recipient, so the file is written owner-only and `K` is never printed.
 * @module
 */
import { bytesToHex, ERC8441_EPHEMERAL_KEY_BYTES, hexToBytes, type StealthPayment } from '@wraith-pq/sdk';
import { CliError } from './errors.js';
import { parseJsonFile, readTextFile, writePrivateFile } from './files.js';

export type SavedPayment = Pick<StealthPayment, 'schemeId' | 'stealthAddress' | 'stealthSuiAddress' | 'ephemeralCiphertext' | 'viewTag' | 'sharedSecret'> & {
  recipient: string;
  metaAddress: string;
};

type PaymentFileJson = {
  kind: 'wraith-payment';
  version: 1;
  recipient: string;
  meta_address: string;
  /** 1000 (Wraith) or 3 (ERC-8441); absent in files written before scheme 3, which are all 1000. */
  scheme_id?: 1000 | 3;
  stealth_address: string;
  stealth_sui_address: string;
  ephemeral_key: string;
  view_tag: number;
  shared_secret: string;
};

export async function savePaymentFile(path: string, payment: SavedPayment, overwrite: boolean): Promise<void> {
  const json: PaymentFileJson = {
    kind: 'wraith-payment',
    version: 1,
    recipient: payment.recipient,
    meta_address: payment.metaAddress,
    scheme_id: payment.schemeId,
    stealth_address: payment.stealthAddress,
    stealth_sui_address: payment.stealthSuiAddress,
    ephemeral_key: bytesToHex(payment.ephemeralCiphertext),
    view_tag: payment.viewTag,
    shared_secret: bytesToHex(payment.sharedSecret),
  };
  await writePrivateFile(path, `${JSON.stringify(json, null, 2)}\n`, '--save', overwrite);
}

export async function loadPaymentFile(path: string): Promise<SavedPayment> {
  const json = parseJsonFile(await readTextFile(path, '--payment'), path, '--payment') as Partial<PaymentFileJson> | null;
  const bad = () => new CliError('INVALID_FILE', `--payment ${path} is not a payment file`, 'pass a file written by `wraith pay … --save`');
  if (typeof json !== 'object' || json === null || json.kind !== 'wraith-payment' || json.version !== 1) throw bad();
  const strings = [json.recipient, json.meta_address, json.stealth_address, json.stealth_sui_address, json.ephemeral_key, json.shared_secret];
  if (!strings.every((s) => typeof s === 'string') || !Number.isInteger(json.view_tag)) throw bad();
  const schemeId = json.scheme_id ?? 1000;
  if (schemeId !== 1000 && schemeId !== 3) throw bad();
  return {
    schemeId,
    recipient: json.recipient!,
    metaAddress: json.meta_address!,
    stealthAddress: json.stealth_address!,
    stealthSuiAddress: json.stealth_sui_address!,
    ephemeralCiphertext: hexToBytes(json.ephemeral_key!, 'ephemeral_key', schemeId === 3 ? ERC8441_EPHEMERAL_KEY_BYTES : 1088),
    viewTag: json.view_tag!,
    sharedSecret: hexToBytes(json.shared_secret!, 'shared_secret', 32),
  };
}
