'use client';
/**
 * A QR code drawn as one SVG path (no canvas, no inline script, no network). Hex is encoded in
 * upper case by the caller where it can be: the QR alphanumeric mode then packs it densely.
 */
import { useMemo } from 'react';
import { encode } from 'uqr';

/**
 * `ecc` 'L' packs the most into a code; a short value (a payment link) uses 'M', which a phone
 * camera still reads with part of the code glared or creased.
 */
export function QrCode({ value, label, large = false, ecc = 'L', testId }: { value: string; label: string; large?: boolean; ecc?: 'L' | 'M' | 'Q'; testId?: string }) {
  const { size, path } = useMemo(() => {
    const qr = encode(value, { ecc, border: 4 });
    let d = '';
    qr.data.forEach((row, y) =>
      row.forEach((dark, x) => {
        if (dark) d += `M${x} ${y}h1v1h-1z`;
      }),
    );
    return { size: qr.size, path: d };
  }, [value, ecc]);
  return (
    <svg
      className={large ? 'qr large' : 'qr'}
      viewBox={`0 0 ${size} ${size}`}
      role="img"
      aria-label={label}
      data-testid={testId}
      shapeRendering="crispEdges"
      xmlns="http://www.w3.org/2000/svg"
    >
      <rect width={size} height={size} fill="#fff" />
      <path d={path} fill="#000" />
    </svg>
  );
}
