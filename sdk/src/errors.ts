/**
 * Typed errors of the SDK.
 *
 * Every error carries a stable `code` (the codes of the HTTP API where one applies, see
 * API.md "Errors"), a one-line `shortMessage`, optional structured `details` and the
 * original `cause`. Messages never contain the offending value: a secret key passed in the
 * wrong field must not end up in a log line because it failed validation.
 * @module
 */

/** Stable error codes raised by the SDK. */
export type WraithErrorCode =
  | 'INVALID_HEX'
  | 'INVALID_KEY'
  | 'KEY_MISMATCH'
  | 'INVALID_META_ADDRESS'
  | 'LEGACY_META_ADDRESS'
  | 'INVALID_ANNOUNCEMENT'
  | 'INVALID_ARGUMENT'
  | 'INVALID_KEYSTORE'
  | 'WRONG_PASSWORD'
  | 'KEYSTORE_TAMPERED'
  | 'INVALID_CID'
  | 'CONTENT_MISMATCH'
  | 'SCAN_WORKER_FAILED'
  | 'CHAIN_RPC_FAILED'
  | 'INSUFFICIENT_GAS'
  | 'TRANSACTION_REVERTED'
  | 'PAYMENT_NOT_ANNOUNCED'
  | 'COIN_REFUSED'
  | 'WRAITH_PAY_MISSING'
  | 'CREATE2_DEPLOYER_MISSING'
  | 'SUI_TRANSACTION_FAILED'
  | 'INVALID_HISTORY'
  | 'BUNDLER_UNREACHABLE'
  | 'PAYMASTER_REFUSED'
  | 'QUOTE_EXPIRED'
  | 'FEE_ABOVE_MAX'
  | 'ENTRY_POINT_MISSING'
  | 'RECEIPT_TIMEOUT';

/** One problem with one input field. */
export type WraithErrorDetail = { path: string; issue: string };

export type WraithErrorParameters = {
  details?: WraithErrorDetail[];
  cause?: unknown;
  /** Extra sentence appended to the message: how to fix it. */
  hint?: string;
};

/** Base class of every error the SDK throws on purpose. */
export class WraithError extends Error {
  override name = 'WraithError';
  readonly code: WraithErrorCode;
  readonly shortMessage: string;
  readonly details: WraithErrorDetail[];

  constructor(code: WraithErrorCode, shortMessage: string, params: WraithErrorParameters = {}) {
    const message = params.hint ? `${shortMessage} ${params.hint}` : shortMessage;
    super(message, params.cause === undefined ? undefined : { cause: params.cause });
    this.code = code;
    this.shortMessage = shortMessage;
    this.details = params.details ?? [];
  }
}

/** A string that should be hex is not (odd length, bad characters, empty). */
export class InvalidHexError extends WraithError {
  override name = 'InvalidHexError';
  constructor(field: string, issue: string) {
    super('INVALID_HEX', `${field} is not valid hex: ${issue}.`, {
      details: [{ path: field, issue }],
    });
  }
}

/** A key has the wrong length or is not a valid key of its type. */
export class InvalidKeyError extends WraithError {
  override name = 'InvalidKeyError';
  constructor(field: string, issue: string, params: Omit<WraithErrorParameters, 'details'> = {}) {
    super('INVALID_KEY', `${field} is not a valid key: ${issue}.`, {
      ...params,
      details: [{ path: field, issue }],
    });
  }
}

/** Two keys that must belong together do not (e.g. spending secret vs spending public key). */
export class KeyMismatchError extends WraithError {
  override name = 'KeyMismatchError';
  constructor(field: string, issue: string) {
    super('KEY_MISMATCH', `${field} does not match: ${issue}.`, {
      details: [{ path: field, issue }],
    });
  }
}

/** A meta-address violates a rule of PROTOCOL.md section 3. */
export class InvalidMetaAddressError extends WraithError {
  override name = 'InvalidMetaAddressError';
  constructor(issue: string, params: Omit<WraithErrorParameters, 'details'> = {}) {
    super('INVALID_META_ADDRESS', `Invalid meta-address: ${issue}.`, {
      ...params,
      details: [{ path: 'meta_address', issue }],
    });
  }
}

/**
 * A version-1 meta-address (two ML-KEM keys). Under that format the one-time spend key is
 * derived from the shared secret alone, which the sender knows: the sender could spend the
 * payment. It is refused everywhere; the recipient must generate new (version 2) keys.
 */
export class LegacyMetaAddressError extends WraithError {
  override name = 'LegacyMetaAddressError';
  constructor() {
    super(
      'LEGACY_META_ADDRESS',
      'Legacy version-1 meta-address refused: under that format the sender can derive the recipient\'s spending key and take the funds.',
      {
        hint: 'The recipient must generate new keys (version 2: secp256k1 spending key + ML-KEM-768 viewing key) and publish the new meta-address.',
        details: [{ path: 'meta_address', issue: 'version 1 (legacy, insecure) is not accepted' }],
      },
    );
  }
}

/** An announcement record is malformed. */
export class InvalidAnnouncementError extends WraithError {
  override name = 'InvalidAnnouncementError';
  constructor(path: string, issue: string) {
    super('INVALID_ANNOUNCEMENT', `Invalid announcement: ${path} ${issue}.`, {
      details: [{ path, issue }],
    });
  }
}

/** Any other argument of the wrong shape. */
export class InvalidArgumentError extends WraithError {
  override name = 'InvalidArgumentError';
  constructor(path: string, issue: string) {
    super('INVALID_ARGUMENT', `Invalid argument: ${path} ${issue}.`, {
      details: [{ path, issue }],
    });
  }
}

/** A keystore blob that is not a keystore this SDK can read (bad JSON, unknown version, bad fields). */
export class InvalidKeystoreError extends WraithError {
  override name = 'InvalidKeystoreError';
  constructor(issue: string) {
    super('INVALID_KEYSTORE', `Not a readable keystore: ${issue}.`, { details: [{ path: 'keystore', issue }] });
  }
}

/** The password does not open this keystore. */
export class WrongPasswordError extends WraithError {
  override name = 'WrongPasswordError';
  constructor() {
    super('WRONG_PASSWORD', 'Wrong password for this keystore.', { hint: 'Check the password and try again.' });
  }
}

/** The password is right but the encrypted contents were modified: do not trust this copy. */
export class KeystoreTamperedError extends WraithError {
  override name = 'KeystoreTamperedError';
  constructor() {
    super('KEYSTORE_TAMPERED', 'The keystore was modified after it was sealed (authentication failed).', {
      hint: 'Restore the keys from a backup you trust.',
    });
  }
}
