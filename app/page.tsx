export default function Home() {
  return (
    <main>
      <h1>Wraith</h1>
      <p>
        Wraith lets a sender pay a recipient at a one-time address that nobody can link to the recipient&apos;s
        published meta-address. Viewing keys are ML-KEM-768 (FIPS 203), so recorded traffic stays unlinkable even
        against a future quantum computer; spending keys are secp256k1, so the funds live in ordinary EVM and Sui
        accounts.
      </p>
      <p>
        API: <code>/api/v1</code> · health: <a href="/health">/health</a>
      </p>
    </main>
  );
}
