import Link from 'next/link';

export default function Home() {
  return (
    <>
      <h1>Private payments, built for the quantum era</h1>
      <p className="lede">
        Wraith lets anyone pay you at a fresh one-time address that nobody else can link to you or to your other
        payments. You publish one meta-address (under your .eth or .sui name); each sender derives a new stealth
        address from it and announces an encrypted note that only your viewing key can recognise. The viewing keys are
        ML-KEM-768 (FIPS 203), so recorded traffic stays unlinkable even against a future quantum computer, and the
        funds sit in ordinary EVM and Sui accounts that only your spending key controls.
      </p>

      <div className="cards">
        <Link className="card" href="/receive">
          <strong>Receive</strong>
          Create your keys in this browser, save them encrypted, and publish your meta-address for your name.
        </Link>
        <Link className="card" href="/send">
          <strong>Send</strong>
          Pay a name.eth, a name.sui or a meta-address: get a one-time address and announce the payment.
        </Link>
        <Link className="card" href="/scan">
          <strong>Scan</strong>
          Find the payments made to you in a Web Worker, off the page&apos;s main thread, and reveal a payment&apos;s key when you spend.
        </Link>
      </div>

      <section className="panel" aria-labelledby="docs-heading">
        <h2 id="docs-heading">For developers</h2>
        <ul>
          <li>
            <a href="/api-docs">HTTP API reference</a> (OpenAPI) — endpoints under <code>/api/v1</code>.
          </li>
          <li>
            <a href="/sdk-docs/index.html">SDK reference</a> — <code>@wraith-pq/sdk</code>: key generation, payments,
            encrypted keystore, scanning and the API client, for browsers and Node, with quick starts.
          </li>
          <li>
            Service health: <a href="/health">/health</a>.
          </li>
        </ul>
      </section>
    </>
  );
}
