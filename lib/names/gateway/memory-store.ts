/**
 * The gateway's {@link NameStore} in process memory (`REGISTRY_URL=memory:`): lost on restart,
 * like the memory registry. Every method runs without awaiting in between, so each is atomic.
 */
import { equalBytes } from '@wraith-pq/sdk';
import { isOpen, NameNonceError, type IssuedAddress, type IssuePolicy, type IssueResult, type NameChange, type NameRecord, type NameStore } from './store.ts';

type NameState = { record: NameRecord | null; nonce: number; nextCounter: number };
type IssuedRow = IssuedAddress & { requester: Uint8Array };

export function createMemoryNameStore(): NameStore {
  const names = new Map<string, NameState>();
  const metas: Uint8Array[] = [];
  const issued: IssuedRow[] = [];
  const cursors = new Map<number, number>();
  const plain = ({ requester: _requester, ...row }: IssuedRow): IssuedAddress => ({ ...row });

  return {
    async getName(name) {
      const record = names.get(name)?.record ?? null;
      return record === null ? null : { ...record };
    },
    async nonceOf(name) {
      return names.get(name)?.nonce ?? 0;
    },
    async setName(name, expectedNonce, change: NameChange) {
      const state = names.get(name) ?? { record: null, nonce: 0, nextCounter: 0 };
      if (state.nonce !== expectedNonce) throw new NameNonceError();
      state.nonce += 1;
      if (change === null) state.record = null;
      else {
        metas.push(change.metaAddress.slice());
        state.record = { name, kind: change.kind, metaId: metas.length, metaAddress: change.metaAddress.slice(), owner: change.owner, nonce: state.nonce };
      }
      if (state.record !== null) state.record.nonce = state.nonce;
      names.set(name, state);
      return state.record === null ? null : { ...state.record };
    },
    async issue(policy: IssuePolicy): Promise<IssueResult> {
      const state = names.get(policy.name);
      if (state?.record == null) return { address: null, reason: 'unknown-name' };
      const open = issued.filter((row) => row.name === policy.name && row.metaId === state.record!.metaId && isOpen(row, policy.now));
      const mine = open.filter((row) => equalBytes(row.requester, policy.requester)).at(-1);
      if (mine !== undefined && mine.issuedAt > policy.now - policy.sameRequesterSeconds) return { address: plain(mine), fresh: false };
      if (open.length >= policy.maxUnpaid) return { address: plain(open.at(-1)!), fresh: false };
      if (!policy.mayIssueNew) return mine === undefined ? { address: null, reason: 'requester-limit' } : { address: plain(mine), fresh: false };
      const counter = state.nextCounter++;
      const row: IssuedRow = {
        id: issued.length + 1,
        name: policy.name,
        counter,
        metaId: state.record.metaId,
        address: policy.derive(counter, state.record.metaAddress),
        issuedAt: policy.now,
        expiresAt: policy.now + policy.addressTtlSeconds,
        paidChainId: null,
        paidTxHash: null,
        announcementId: null,
        requester: policy.requester.slice(),
      };
      issued.push(row);
      return { address: plain(row), fresh: true };
    },
    async metaAddressOf(metaId) {
      return metas[metaId - 1]?.slice() ?? null;
    },
    async watched(expiredAfter) {
      return issued.filter((row) => isOpen(row, expiredAfter)).map(plain);
    },
    async markPaid(id, payment) {
      const row = issued[id - 1];
      if (row === undefined || row.paidTxHash !== null) return;
      row.paidChainId = payment.chainId;
      row.paidTxHash = payment.txHash;
      row.announcementId = payment.announcementId;
    },
    async countIssued(name) {
      return issued.filter((row) => row.name === name).length;
    },
    async watchCursor(chainId) {
      return cursors.get(chainId) ?? null;
    },
    async setWatchCursor(chainId, nextBlock) {
      cursors.set(chainId, nextBlock);
    },
    async close() {},
  };
}
