import type { Metadata } from 'next';
import { ReceiveApp } from '../_components/receive-app';

export const metadata: Metadata = { title: 'Receive' };

export default function ReceivePage() {
  return (
    <>
      <h1>Receive</h1>
      <p className="lede">Create your keys, keep them safe, then share one link that anyone can pay.</p>
      <ReceiveApp />
    </>
  );
}
