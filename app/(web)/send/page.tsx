import type { Metadata } from 'next';
import { SendApp } from '../_components/send-app';

export const metadata: Metadata = { title: 'Send' };

export default function SendPage() {
  return (
    <>
      <h1>Send</h1>
      <p className="lede">Pay someone privately: the money goes to a new address that only they can find.</p>
      <SendApp />
    </>
  );
}
