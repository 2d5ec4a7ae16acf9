/**
 * A Sui full node's JSON-RPC, as far as reading and sweeping SUI uses it, for msw: a small
 * in-memory ledger of `Coin<SUI>` objects and address balances behind the methods
 * `@mysten/sui`'s `SuiJsonRpcClient` calls to read a balance and to build, dry-run and execute a
 * transfer (`suix_getBalance`, `suix_getCoins`, `suix_getLatestSuiSystemState`, `sui_getCheckpoint`,
 * `sui_dryRunTransactionBlock`, `sui_executeTransactionBlock`). Responses have the fields and
 * string encodings of a real node's (sui-json-rpc-types): u64 as decimal strings, digests in
 * base58, addresses as 0x + 64 hex. The system state lists no validators (a real one lists
 * about a hundred; nothing here reads them).
 *
 * The calls, found by running `withdrawSui` against this mock and logging them: `suix_getBalance`
 * (the sweep's own read), then the resolver's `suix_getLatestSuiSystemState` (gas price, epoch),
 * `suix_getBalance` and `suix_getCoins` (gas payment), `sui_getCheckpoint("0")` (chain identifier,
 * once per client), one `sui_dryRunTransactionBlock` with an empty payment (budget), and
 * `sui_executeTransactionBlock`.
 *
 * Execution checks what a validator checks before it charges anything: the signature over the
 * transaction's intent message (with @mysten/sui's verify helpers), that it comes from the
 * sender, the gas coins' owner and current version, the coin reservation of the address
 * balance (amount, epoch), and a budget the gas payment covers. It runs only the programmable
 * transaction a sweep is (`TransferObjects([GasCoin], address)`) and answers anything else with
 * a JSON-RPC error. The gas of a transfer is priced like mainnet's: 1,000 computation units at
 * the reference gas price, one coin object's storage written (988,000 MIST) and 99 % of each
 * consumed coin's storage rebated.
 */
import { bcs } from '@mysten/sui/bcs';
import { TransactionDataBuilder } from '@mysten/sui/transactions';
import { fromBase58, fromBase64, normalizeStructTag, normalizeSuiAddress, toBase58 } from '@mysten/sui/utils';
import { verifyTransactionSignature } from '@mysten/sui/verify';
import { http, HttpResponse } from 'msw';

export const SUI_NODE_URL = 'https://fullnode.sui-node.example/';
/** Mainnet's genesis checkpoint digest: its chain identifier. */
export const MAINNET_GENESIS_DIGEST = '4btiuiMPvEENsttpZC7CZ53DruC3MAgfznDbASZ7DR6S';
export const SUI_COIN_TYPE = '0x2::sui::SUI';
/** sui-types' ObjectDigest::OBJECT_DIGEST_DELETED (32 bytes of 99), base58: the digest effects give deleted objects. */
const DELETED_DIGEST = toBase58(new Uint8Array(32).fill(99));

/** Storage cost of one `Coin<SUI>` object (76 storage units per byte x its bytes), and the share rebated when it is consumed. */
const COIN_STORAGE_COST = 988_000n;
const COIN_STORAGE_REBATE = 978_120n; // 99 %
const COIN_NON_REFUNDABLE = COIN_STORAGE_COST - COIN_STORAGE_REBATE;
/** Computation units of a single-command transfer (the minimum bucket). */
const TRANSFER_COMPUTATION_UNITS = 1_000n;
/** Coins per `suix_getCoins` page when `limit` is absent or larger: a full node's cap. */
const PAGE_LIMIT = 50;

export type LedgerCoin = { objectId: string; version: bigint; digest: string; balance: bigint; owner: string; previousTransaction: string };

/** What the node was asked to execute, decoded. */
export type SubmittedTransaction = {
  digest: string;
  /** The BCS TransactionData bytes and the serialized signature, as received. */
  bytes: Uint8Array;
  signature: string;
  sender: string;
  /** The address whose key made the signature, per @mysten/sui's verifyTransactionSignature. */
  signer: string;
  /** The public key inside the signature (compressed secp256k1, 33 bytes). */
  signerPublicKey: Uint8Array;
  signatureScheme: string;
  gas: { price: bigint; budget: bigint; payment: { objectId: string; version: string; digest: string }[] };
  /** The commands, as @mysten/sui's BCS schema decodes them. */
  commands: unknown[];
  inputs: unknown[];
  /** The destination of `TransferObjects([GasCoin], ...)`. */
  recipient: string | null;
};

export type SuiNodeMock = {
  handlers: ReturnType<typeof http.post>[];
  /** JSON-RPC methods received, in order. */
  calls: string[];
  submitted: SubmittedTransaction[];
  referenceGasPrice: bigint;
  epoch: bigint;
  /** Give `owner` a new coin of `balance` MIST. */
  mintCoin(owner: string, balance: bigint): LedgerCoin;
  /** Deposit into `owner`'s address balance (what `send_funds` does). */
  depositAddressBalance(owner: string, amount: bigint): void;
  coinsOf(owner: string): LedgerCoin[];
  addressBalanceOf(owner: string): bigint;
  totalOf(owner: string): bigint;
  /** The next execution aborts with this error (as the node's effects word it); gas is still charged. */
  failNextExecution(error: string): void;
  reset(): void;
};

/** Deterministic 32-byte digests, base58 like a node's. */
function digestFrom(seed: string): string {
  const bytes = new Uint8Array(32);
  for (let i = 0; i < seed.length; i++) bytes[i % 32] = (bytes[i % 32]! * 31 + seed.charCodeAt(i) + i) & 0xff;
  return toBase58(bytes);
}

function rpcError(id: unknown, code: number, message: string) {
  return HttpResponse.json({ jsonrpc: '2.0', id, error: { code, message } });
}

/** The coin reservation @mysten/sui puts in a gas payment for address-balance funds: digest = amount (u64 LE) || epoch (u32 LE) || 20 x 0xac. */
function coinReservation(digest: string): { amount: bigint; epoch: number } | null {
  const bytes = fromBase58(digest);
  if (bytes.length !== 32 || !bytes.subarray(12).every((b) => b === 0xac)) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, 32);
  return { amount: view.getBigUint64(0, true), epoch: view.getUint32(8, true) };
}

/** msw handlers for a Sui full node at `url`, with an empty ledger. */
export function createSuiNodeMock(url: string = SUI_NODE_URL): SuiNodeMock {
  const coins = new Map<string, LedgerCoin>();
  const addressBalances = new Map<string, bigint>();
  const calls: string[] = [];
  const submitted: SubmittedTransaction[] = [];
  let failure: string | null = null;
  let objectCounter = 0;
  let lamport = 40_000_000n;

  const mock: SuiNodeMock = {
    handlers: [],
    calls,
    submitted,
    referenceGasPrice: 750n,
    epoch: 912n,
    mintCoin(owner, balance) {
      objectCounter++;
      const coin = {
        objectId: `0xc01e${objectCounter.toString(16).padStart(60, '0')}`,
        version: ++lamport,
        digest: digestFrom(`coin ${objectCounter}`),
        balance,
        owner: normalizeSuiAddress(owner),
        previousTransaction: digestFrom(`mint ${objectCounter}`),
      };
      coins.set(coin.objectId, coin);
      return coin;
    },
    depositAddressBalance(owner, amount) {
      const key = normalizeSuiAddress(owner);
      addressBalances.set(key, (addressBalances.get(key) ?? 0n) + amount);
    },
    coinsOf: (owner) => [...coins.values()].filter((c) => c.owner === normalizeSuiAddress(owner)),
    addressBalanceOf: (owner) => addressBalances.get(normalizeSuiAddress(owner)) ?? 0n,
    totalOf: (owner) => mock.coinsOf(owner).reduce((sum, c) => sum + c.balance, 0n) + mock.addressBalanceOf(owner),
    failNextExecution(error) {
      failure = error;
    },
    reset() {
      coins.clear();
      addressBalances.clear();
      calls.length = 0;
      submitted.length = 0;
      failure = null;
    },
  };

  const gasCostSummary = (computationCost: bigint, storageCost: bigint, storageRebate: bigint, nonRefundableStorageFee: bigint) => ({
    computationCost: String(computationCost),
    storageCost: String(storageCost),
    storageRebate: String(storageRebate),
    nonRefundableStorageFee: String(nonRefundableStorageFee),
  });

  /** Gas of a sweep consuming `coinCount` coin objects into one written coin. */
  const sweepGas = (price: bigint, coinCount: number) => {
    const rebated = BigInt(coinCount);
    return { computation: TRANSFER_COMPUTATION_UNITS * price, storage: COIN_STORAGE_COST, rebate: COIN_STORAGE_REBATE * rebated, nonRefundable: COIN_NON_REFUNDABLE * rebated };
  };

  /** Decode a transaction the way a validator reads it; refuses shapes the mock does not run. */
  const decode = (txBytes: string) => {
    const bytes = fromBase64(txBytes);
    const data = bcs.TransactionData.parse(bytes).V1!;
    const programmable = data.kind.ProgrammableTransaction;
    if (!programmable) throw new Error('only programmable transactions are served');
    const { inputs, commands } = programmable;
    let recipient: string | null = null;
    const [command] = commands;
    if (commands.length === 1 && command?.TransferObjects) {
      const { objects, address } = command.TransferObjects;
      const input = address.$kind === 'Input' ? inputs[address.Input] : undefined;
      if (objects.length === 1 && objects[0]!.$kind === 'GasCoin' && input?.Pure) recipient = bcs.Address.parse(fromBase64(input.Pure.bytes));
    }
    return { bytes, data, inputs, commands, recipient, digest: TransactionDataBuilder.getDigestFromBytes(bytes) };
  };

  const inputJson = (data: ReturnType<typeof decode>['data'], recipient: string) => ({
    messageVersion: 'v1',
    transaction: {
      kind: 'ProgrammableTransaction',
      inputs: [{ type: 'pure', valueType: 'address', value: recipient }],
      transactions: [{ TransferObjects: [['GasCoin'], { Input: 0 }] }],
    },
    sender: normalizeSuiAddress(data.sender),
    gasData: {
      payment: data.gasData.payment!.map((ref) => ({ objectId: ref.objectId, version: Number(ref.version), digest: ref.digest })),
      owner: normalizeSuiAddress(data.gasData.owner!),
      price: String(data.gasData.price),
      budget: String(data.gasData.budget),
    },
  });

  const balanceChange = (owner: string, amount: bigint) => ({ owner: { AddressOwner: owner }, coinType: SUI_COIN_TYPE, amount: String(amount) });

  const handler = http.post(new URL(url).href, async ({ request }) => {
    const { id, method, params } = (await request.json()) as { id: number; method: string; params: unknown[] };
    calls.push(method);
    switch (method) {
      case 'suix_getBalance': {
        const [owner, coinType] = params as [string, string | null];
        if (coinType !== null && coinType !== undefined && normalizeStructTag(coinType) !== normalizeStructTag(SUI_COIN_TYPE)) return rpcError(id, -32602, `Invalid params: only ${SUI_COIN_TYPE} is served`);
        const own = mock.coinsOf(owner);
        return HttpResponse.json({
          jsonrpc: '2.0',
          id,
          result: {
            coinType: SUI_COIN_TYPE,
            coinObjectCount: own.length,
            totalBalance: String(mock.totalOf(owner)),
            lockedBalance: {},
            fundsInAddressBalance: String(mock.addressBalanceOf(owner)),
          },
        });
      }
      case 'suix_getCoins': {
        const [owner, , cursor, limit] = params as [string, string | null, string | null, number | null];
        const own = mock.coinsOf(owner).sort((a, b) => a.objectId.localeCompare(b.objectId));
        const start = cursor ? own.findIndex((c) => c.objectId === cursor) + 1 : 0;
        const page = own.slice(start, start + Math.min(limit ?? PAGE_LIMIT, PAGE_LIMIT));
        const hasNextPage = start + page.length < own.length;
        return HttpResponse.json({
          jsonrpc: '2.0',
          id,
          result: {
            data: page.map((c) => ({ coinType: SUI_COIN_TYPE, coinObjectId: c.objectId, version: String(c.version), digest: c.digest, balance: String(c.balance), previousTransaction: c.previousTransaction })),
            nextCursor: page.at(-1)?.objectId ?? null,
            hasNextPage,
          },
        });
      }
      case 'suix_getLatestSuiSystemState':
        return HttpResponse.json({ jsonrpc: '2.0', id, result: systemState(mock.epoch, mock.referenceGasPrice) });
      case 'sui_getCheckpoint': {
        if (String(params[0]) !== '0') return rpcError(id, -32602, 'Invalid params: only the genesis checkpoint is served');
        return HttpResponse.json({ jsonrpc: '2.0', id, result: genesisCheckpoint() });
      }
      case 'sui_dryRunTransactionBlock': {
        const tx = decode(params[0] as string);
        if (tx.recipient === null) return rpcError(id, -32602, 'Invalid params: this node runs TransferObjects([GasCoin], address) only');
        const price = BigInt(tx.data.gasData.price!);
        // An empty payment is simulated with a mock gas coin, as a full node does for estimates; with
        // no owned object input its replay protection then needs a ValidDuring expiration on this chain.
        if (tx.data.gasData.payment!.length === 0) {
          const valid = tx.data.expiration?.ValidDuring;
          const epochs = valid ? [BigInt(valid.minEpoch!), BigInt(valid.maxEpoch!)] : null;
          if (!valid || valid.chain !== MAINNET_GENESIS_DIGEST || epochs![0]! > mock.epoch || epochs![1]! < mock.epoch) {
            return rpcError(id, -32002, 'Transaction validator signing failed: a transaction without owned inputs needs a ValidDuring expiration for this chain and epoch');
          }
        }
        const consumed = Math.max(tx.data.gasData.payment!.filter((ref) => coinReservation(ref.digest) === null).length, 1);
        const gas = sweepGas(price, consumed);
        const gasObject = { owner: { AddressOwner: tx.recipient }, reference: { objectId: normalizeSuiAddress('0x0'), version: Number(lamport + 1n), digest: digestFrom(`dry ${tx.digest}`) } };
        return HttpResponse.json({
          jsonrpc: '2.0',
          id,
          result: {
            effects: {
              messageVersion: 'v1',
              status: { status: 'success' },
              executedEpoch: String(mock.epoch),
              gasUsed: gasCostSummary(gas.computation, gas.storage, gas.rebate, gas.nonRefundable),
              modifiedAtVersions: [],
              transactionDigest: tx.digest,
              mutated: [gasObject],
              gasObject,
              dependencies: [],
            },
            events: [],
            objectChanges: [],
            balanceChanges: [],
            input: inputJson(tx.data, tx.recipient),
          },
        });
      }
      case 'sui_executeTransactionBlock': {
        const [txBytes, signatures, options] = params as [string, string[], { showEffects?: boolean; showBalanceChanges?: boolean } | null];
        const tx = decode(txBytes);
        const sender = normalizeSuiAddress(tx.data.sender!);
        let publicKey;
        try {
          if (signatures.length !== 1) throw new Error('expected one signature');
          publicKey = await verifyTransactionSignature(tx.bytes, signatures[0]!, { address: sender });
        } catch (error) {
          return rpcError(id, -32002, `Invalid user signature: ${(error as Error).message}`);
        }
        if (tx.recipient === null) return rpcError(id, -32602, 'Invalid params: this node runs TransferObjects([GasCoin], address) only');
        const price = BigInt(tx.data.gasData.price!);
        const budget = BigInt(tx.data.gasData.budget!);
        const payment = tx.data.gasData.payment!;
        let reserved = 0n;
        const used: LedgerCoin[] = [];
        for (const ref of payment) {
          const reservation = coinReservation(ref.digest);
          if (reservation !== null) {
            if (BigInt(reservation.epoch) !== mock.epoch || reservation.amount > mock.addressBalanceOf(sender)) {
              return rpcError(id, -32002, 'Transaction validator signing failed due to issues with transaction inputs: invalid coin reservation');
            }
            reserved += reservation.amount;
            continue;
          }
          const coin = coins.get(normalizeSuiAddress(ref.objectId));
          if (coin === undefined || coin.owner !== sender || String(coin.version) !== String(ref.version) || coin.digest !== ref.digest) {
            return rpcError(id, -32002, `Transaction validator signing failed due to issues with transaction inputs: object ${ref.objectId} is not available for consumption by ${sender}`);
          }
          used.push(coin);
        }
        const available = used.reduce((sum, c) => sum + c.balance, 0n) + reserved;
        if (price < mock.referenceGasPrice) return rpcError(id, -32002, `Gas price ${price} under reference gas price (RGP) ${mock.referenceGasPrice}`);
        if (available < budget) return rpcError(id, -32002, `Balance of gas object ${available} is lower than the needed amount: ${budget}`);
        const scheme = publicKey.flag() === 0x01 ? 'Secp256k1' : String(publicKey.flag());
        submitted.push({
          digest: tx.digest,
          bytes: tx.bytes,
          signature: signatures[0]!,
          sender,
          signer: publicKey.toSuiAddress(),
          signerPublicKey: publicKey.toRawBytes(),
          signatureScheme: scheme,
          gas: { price, budget, payment: payment.map((ref) => ({ objectId: ref.objectId, version: String(ref.version), digest: ref.digest })) },
          commands: tx.commands,
          inputs: tx.inputs,
          recipient: tx.recipient,
        });

        // Execute: smash the payment into the first coin (or a new one for an address balance
        // alone), charge gas, then hand the gas coin to the recipient unless the command aborted.
        const gas = sweepGas(price, Math.max(used.length, 1));
        const fee = gas.computation + gas.storage - gas.rebate;
        const version = ++lamport;
        const modifiedAtVersions = used.map((c) => ({ objectId: c.objectId, sequenceNumber: String(c.version) }));
        for (const c of used.slice(1)) coins.delete(c.objectId);
        addressBalances.set(sender, mock.addressBalanceOf(sender) - reserved);
        const gasCoin = used[0] ?? mock.mintCoin(sender, 0n);
        const aborted = failure;
        failure = null;
        gasCoin.balance = available - fee;
        gasCoin.version = version;
        gasCoin.digest = digestFrom(`${tx.digest} gas`);
        gasCoin.previousTransaction = tx.digest;
        if (aborted === null) gasCoin.owner = tx.recipient;
        const gasObject = { owner: { AddressOwner: gasCoin.owner }, reference: { objectId: gasCoin.objectId, version: Number(version), digest: gasCoin.digest } };
        const effects = {
          messageVersion: 'v1',
          status: aborted === null ? { status: 'success' } : { status: 'failure', error: aborted },
          executedEpoch: String(mock.epoch),
          gasUsed: gasCostSummary(gas.computation, gas.storage, gas.rebate, gas.nonRefundable),
          modifiedAtVersions,
          transactionDigest: tx.digest,
          mutated: [gasObject],
          ...(used.length > 1 ? { deleted: used.slice(1).map((c) => ({ objectId: c.objectId, version: Number(version), digest: DELETED_DIGEST })) } : {}),
          gasObject,
          dependencies: used.map((c) => c.previousTransaction),
        };
        const balanceChanges = aborted === null ? [balanceChange(sender, -available), balanceChange(tx.recipient, available - fee)] : [balanceChange(sender, -fee)];
        return HttpResponse.json({
          jsonrpc: '2.0',
          id,
          result: {
            digest: tx.digest,
            ...(options?.showEffects ? { effects } : {}),
            ...(options?.showBalanceChanges ? { balanceChanges } : {}),
            confirmedLocalExecution: false,
          },
        });
      }
      default:
        return rpcError(id, -32601, `Method not found: ${method}`);
    }
  });
  mock.handlers.push(handler);
  return mock;
}

function genesisCheckpoint() {
  return {
    epoch: '0',
    sequenceNumber: '0',
    digest: MAINNET_GENESIS_DIGEST,
    networkTotalTransactions: '1',
    epochRollingGasCostSummary: { computationCost: '0', storageCost: '0', storageRebate: '0', nonRefundableStorageFee: '0' },
    timestampMs: '1681393657483',
    transactions: ['Cgww1sn7XViCPSdDcAPmVcARueWuexJ8af8zD842Ws4U'],
    checkpointCommitments: [],
    validatorSignature: 'hqWgMZSOAcE4FvHYhXyqJHGsLB5vvc1zo6zZPXJq4zmaS3TrP1qOfXJkOGBq/fB3',
  };
}

/** `suix_getLatestSuiSystemState` (SuiSystemStateSummary): mainnet-like figures, no validators listed. */
function systemState(epoch: bigint, referenceGasPrice: bigint) {
  return {
    epoch: String(epoch),
    protocolVersion: '104',
    systemStateVersion: '2',
    storageFundTotalObjectStorageRebates: '932145806286133',
    storageFundNonRefundableBalance: '1147003960155',
    referenceGasPrice: String(referenceGasPrice),
    safeMode: false,
    safeModeStorageRewards: '0',
    safeModeComputationRewards: '0',
    safeModeStorageRebates: '0',
    safeModeNonRefundableStorageFee: '0',
    epochStartTimestampMs: '1764028800000',
    epochDurationMs: '86400000',
    stakeSubsidyStartEpoch: '20',
    maxValidatorCount: '150',
    minValidatorJoiningStake: '30000000000000000',
    validatorLowStakeThreshold: '20000000000000000',
    validatorVeryLowStakeThreshold: '15000000000000000',
    validatorLowStakeGracePeriod: '7',
    stakeSubsidyBalance: '4316534567890123456',
    stakeSubsidyDistributionCounter: '892',
    stakeSubsidyCurrentDistributionAmount: '585937500000000',
    stakeSubsidyPeriodLength: '30',
    stakeSubsidyDecreaseRate: 1000,
    totalStake: '7684502147338710025',
    activeValidators: [],
    pendingActiveValidatorsId: '0x6b0c6e7b0e7a1f0a4ab1c3b2d3de7c9e5a5fbe3a6a2c7e3e8c1d4b1f0e2a3c4d',
    pendingActiveValidatorsSize: '0',
    pendingRemovals: [],
    stakingPoolMappingsId: '0xf6e5d4c3b2a1908f7e6d5c4b3a29180f7e6d5c4b3a29180f7e6d5c4b3a291807',
    stakingPoolMappingsSize: '153',
    inactivePoolsId: '0x2e1d0c9b8a7f6e5d4c3b2a1908f7e6d5c4b3a29180f7e6d5c4b3a29180f7e6d5',
    inactivePoolsSize: '31',
    validatorCandidatesId: '0x8a7f6e5d4c3b2a1908f7e6d5c4b3a29180f7e6d5c4b3a29180f7e6d5c4b3a291',
    validatorCandidatesSize: '0',
    atRiskValidators: [],
    validatorReportRecords: [],
  };
}
