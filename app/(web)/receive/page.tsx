import type { Metadata } from 'next';
import { ReceiveApp } from '../_components/receive-app';

export const metadata: Metadata = { title: 'Receive' };

export default function ReceivePage() {
  return (
    <>
      <h1>Receive</h1>
      <p className="lede">Create your keys, keep them safe, and publish one meta-address that every sender can pay.</p>
      <ReceiveApp />
    </>
  );
}
