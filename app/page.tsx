import Link from 'next/link';

export default function Home() {
  return (
    <>
      <h1>Get paid privately</h1>
      <p className="lede">
        Share one link. Everyone who pays you through it pays a new address that only you can find and spend, so nobody can
        add up what you receive or link your payments together. Your keys stay in your browser.
      </p>

      <div className="cards">
        <Link className="card" href="/receive">
          <strong>Receive</strong>
          Create your keys, save them, and get a payment link and a QR code to share.
        </Link>
        <Link className="card" href="/send">
          <strong>Send</strong>
          Pay a payment link, a .eth or .sui name: choose the amount, review the fees, confirm once.
        </Link>
        <Link className="card" href="/scan">
          <strong>Scan</strong>
          Find the payments made to you and move the money to your wallet.
        </Link>
      </div>

      <details className="panel more">
        <summary>Technical details</summary>
        <p className="hint">
          Each sender derives a one-time stealth address from your meta-address and announces an encrypted note (ERC-5564) that
          only your viewing key opens. The viewing keys are ML-KEM-768 (FIPS 203), so recorded traffic stays unlinkable even
          against a future quantum computer; the money sits in ordinary EVM and Sui accounts that only your spending key controls.
        </p>
      </details>

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
