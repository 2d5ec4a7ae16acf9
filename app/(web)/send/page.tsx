import type { Metadata } from 'next';
import { SendApp } from '../_components/send-app';

export const metadata: Metadata = { title: 'Send' };

export default function SendPage() {
  return (
    <>
      <h1>Send</h1>
      <p className="lede">Pay a name or a meta-address at a fresh one-time address, then announce the payment.</p>
      <SendApp />
    </>
  );
}
