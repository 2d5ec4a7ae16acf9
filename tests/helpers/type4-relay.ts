/**
 * A loopback JSON-RPC front for Hardhat's OP Stack node that lets it take the EIP-7702
 * (type 4) transactions a bundler signs.
 *
 * Hardhat 3.18's simulator (EDR) executes EIP-7702 in OP mode (Isthmus): a type-4 transaction it
 * signs itself, from `eth_sendTransaction` with an `authorizationList`, sets the delegation. But
 * its decoder of signed OP transactions refuses the same transaction signed elsewhere:
 * `eth_sendRawTransaction` answers "Invalid transaction type 4." alto signs its bundles locally
 * and sends them raw, so its first claim (the one carrying the authorization) could not land.
 *
 * This front passes every call through unchanged except a raw type-4 transaction: it decodes it,
 * checks the signer is one of the node's unlocked dev accounts, and sends the very same fields
 * with `eth_sendTransaction`. The node signs them with the same key and RFC 6979 makes that
 * signature the same, so the node's transaction hash must equal the hash of the bytes the
 * bundler signed; the front checks it and refuses otherwise. The node thus executes, and charges
 * the L1 data fee of, exactly the transaction the bundler built.
 *
 * @example
 * const relay = await startType4Relay(node.rpcUrl, node.accounts.map((a) => a.address));
 * ... alto --rpc-url relay.url ...
 * await relay.stop();
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { keccak256, numberToHex, parseTransaction, recoverTransactionAddress, type Address, type Hex, type TransactionSerializedEIP7702 } from 'viem';

type JsonRpcRequest = { jsonrpc: '2.0'; id: unknown; method: string; params?: unknown[] };
type JsonRpcResponse = { jsonrpc: '2.0'; id: unknown; result?: unknown; error?: { code: number; message: string } };

export type Type4Relay = {
  url: string;
  /** How many type-4 transactions went through it. */
  relayed(): number;
  stop(): Promise<void>;
};

/** Start the front on a free loopback port in front of `nodeUrl`, for transactions signed by `unlocked`. */
export async function startType4Relay(nodeUrl: string, unlocked: readonly Address[]): Promise<Type4Relay> {
  const signers = new Set(unlocked.map((address) => address.toLowerCase()));
  let relayed = 0;
  const forward = async (body: unknown): Promise<unknown> => {
    const response = await fetch(nodeUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return response.json();
  };
  const handle = async (request: JsonRpcRequest): Promise<unknown> => {
    const raw = request.params?.[0];
    if (request.method !== 'eth_sendRawTransaction' || typeof raw !== 'string' || !raw.startsWith('0x04')) return forward(request);
    const fail = (message: string): JsonRpcResponse => ({ jsonrpc: '2.0', id: request.id, error: { code: -32000, message } });
    const transaction = parseTransaction(raw as TransactionSerializedEIP7702);
    const from = await recoverTransactionAddress({ serializedTransaction: raw as TransactionSerializedEIP7702 });
    if (!signers.has(from.toLowerCase())) return fail(`type-4 relay: ${from} is not an unlocked account of the node`);
    const answer = (await forward({
      ...request,
      method: 'eth_sendTransaction',
      params: [{
        type: '0x4',
        from,
        to: transaction.to,
        data: transaction.data ?? '0x',
        value: numberToHex(transaction.value ?? 0n),
        gas: numberToHex(transaction.gas!),
        nonce: numberToHex(transaction.nonce!),
        chainId: numberToHex(transaction.chainId),
        maxFeePerGas: numberToHex(transaction.maxFeePerGas!),
        maxPriorityFeePerGas: numberToHex(transaction.maxPriorityFeePerGas!),
        accessList: transaction.accessList ?? [],
        authorizationList: transaction.authorizationList.map((authorization) => ({
          chainId: numberToHex(authorization.chainId),
          address: authorization.address,
          nonce: numberToHex(authorization.nonce),
          yParity: numberToHex(authorization.yParity ?? 0),
          r: authorization.r,
          s: authorization.s,
        })),
      }],
    })) as JsonRpcResponse;
    if (answer.error !== undefined) return answer;
    if (answer.result !== keccak256(raw as Hex)) return fail(`type-4 relay: the node sent ${String(answer.result)}, not the signed transaction ${keccak256(raw as Hex)}`);
    relayed += 1;
    return answer;
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        let reply: unknown;
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString()) as JsonRpcRequest | JsonRpcRequest[];
          reply = Array.isArray(body) ? await Promise.all(body.map(handle)) : await handle(body);
        } catch (error) {
          reply = { jsonrpc: '2.0', id: null, error: { code: -32603, message: `type-4 relay: ${(error as Error).message}` } };
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    relayed: () => relayed,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
