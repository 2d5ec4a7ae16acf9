'use client';
/** A labelled value (address, key, record) with a copy button and, optionally, a QR code. */
import { useId, useState } from 'react';
import { CopyButton } from './copy-button';
import { QrCode } from './qr-code';

export type CopyableValueProps = {
  label: string;
  value: string;
  /** What the QR code encodes (default: the value). */
  qrValue?: string;
  /** Offer a QR code (shown on request unless `qrOpen`). */
  qr?: boolean;
  qrOpen?: boolean;
  long?: boolean;
  testId?: string;
};

export function CopyableValue({ label, value, qrValue, qr = false, qrOpen = false, long = false, testId }: CopyableValueProps) {
  const id = useId();
  const [showQr, setShowQr] = useState(qrOpen);
  return (
    <div className="value">
      <div className="value-label" id={id}>
        {label}
      </div>
      <output className={long ? 'value-box long' : 'value-box'} aria-labelledby={id} data-testid={testId} tabIndex={long ? 0 : undefined}>
        {value}
      </output>
      <div className="row">
        <CopyButton value={value} label={label} />
        {qr && (
          <button type="button" className="secondary small" aria-expanded={showQr} onClick={() => setShowQr(!showQr)}>
            {showQr ? 'Hide QR code' : 'Show QR code'}
          </button>
        )}
      </div>
      {qr && showQr && <QrCode value={qrValue ?? value} label={`QR code of the ${label.toLowerCase()}`} large={long} />}
    </div>
  );
}
