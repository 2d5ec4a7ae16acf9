import type { Metadata } from 'next';
import { ScanApp } from '../_components/scan-app';

export const metadata: Metadata = { title: 'Scan' };

export default function ScanPage() {
  return (
    <>
      <h1>Scan</h1>
      <p className="lede">Find the payments made to you. Everything runs in this browser; your keys stay on this device.</p>
      <ScanApp />
    </>
  );
}
