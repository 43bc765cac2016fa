// KV operations on a Draft with Consul's rules (docs/kv.md): every write moves
// the key's ModifyIndex (as every Raft write does in Consul), a plain set keeps
// the key's lock, a lock bumps LockIndex when the key changes hands, and a
// key released by an invalidated session cannot be acquired before its lock
// delay ends. Failed CAS, lock and check operations refuse with CONFLICT and
// Consul's texts, which /v1/kv answers as `false` and /v1/txn as Errors.
import { ApplyError } from './catalog-ops';
import type { KvEntry, KvOp } from './kv-types';
import type { Draft } from './tables';

const MAX_UINT64 = (1n << 64n) - 1n;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function conflict(message: string): ApplyError {
  return new ApplyError('CONFLICT', message);
}

function checkOp(op: KvOp, tree: boolean): void {
  if (typeof op?.key !== 'string') throw new ApplyError('INVALID_ARGUMENT', 'Key: must be a string', 'Key');
  if (!tree && op.key === '') throw new ApplyError('INVALID_ARGUMENT', 'Missing key name', 'Key');
  if (op.value !== undefined && op.value !== null && (typeof op.value !== 'string' || !BASE64.test(op.value))) {
    throw new ApplyError('INVALID_ARGUMENT', 'Value: must be base64', 'Value');
  }
  if (
    op.flags !== undefined &&
    (typeof op.flags !== 'string' || !/^\d{1,20}$/.test(op.flags) || BigInt(op.flags) > MAX_UINT64)
  ) {
    throw new ApplyError('INVALID_ARGUMENT', 'Flags: must be an unsigned 64-bit integer', 'Flags');
  }
}

/** The entry `op` writes: its value and flags, the key's indexes, lock index and lock kept unless given. */
function written(
  draft: Draft,
  op: KvOp,
  existing: KvEntry | undefined,
  lock: Pick<KvEntry, 'LockIndex' | 'Session'>,
): KvEntry {
  const entry: KvEntry = {
    Key: op.key,
    Flags: op.flags ?? '0',
    Value: op.value === undefined || op.value === '' ? null : op.value,
    LockIndex: lock.LockIndex,
    CreateIndex: existing?.CreateIndex ?? draft.index,
    ModifyIndex: draft.index,
  };
  if (lock.Session !== undefined) entry.Session = lock.Session;
  const sealed = draft.seal(entry);
  draft.kv.put(sealed);
  return sealed;
}

function keepLock(existing: KvEntry | undefined): Pick<KvEntry, 'LockIndex' | 'Session'> {
  return {
    LockIndex: existing?.LockIndex ?? 0,
    ...(existing?.Session === undefined ? {} : { Session: existing.Session }),
  };
}

function lock(draft: Draft, op: KvOp, existing: KvEntry | undefined): KvEntry {
  const id = String(op.session ?? '');
  if (id === '' || !draft.kv.session(id))
    throw new ApplyError('INVALID_ARGUMENT', `invalid session "${id}"`, 'Session');
  if (existing?.Session === id) return written(draft, op, existing, keepLock(existing));
  if (existing?.Session !== undefined) throw conflict(`failed to lock key "${op.key}", lock is already held`);
  const until = draft.kv.lockDelay(op.key);
  if (until !== undefined && until > draft.kv.now) {
    throw conflict(`failed to lock key "${op.key}", a lock delay is in force for ${until - draft.kv.now} ms`);
  }
  // A delay that ran out is dropped by the acquire that outlived it, so the table holds only live ones and stragglers.
  draft.kv.setLockDelay(op.key, undefined);
  return written(draft, op, existing, { LockIndex: (existing?.LockIndex ?? 0) + 1, Session: id });
}

function unlock(draft: Draft, op: KvOp, existing: KvEntry | undefined): KvEntry {
  if (existing === undefined || existing.Session === undefined || existing.Session !== op.session) {
    throw conflict(`failed to unlock key "${op.key}", lock isn't held, or is held by another session`);
  }
  return written(draft, op, existing, { LockIndex: existing.LockIndex });
}

function present(op: KvOp, existing: KvEntry | undefined): KvEntry {
  if (existing === undefined) throw conflict(`key "${op.key}" doesn't exist`);
  return existing;
}

export function deleteKvTree(draft: Draft, prefix: string): void {
  for (const key of draft.kv.keysUnder(prefix)) draft.kv.delete(key);
}

function checkIndex(op: KvOp, existing: KvEntry | undefined): KvEntry {
  const entry = present(op, existing);
  if (entry.ModifyIndex !== op.index) {
    throw conflict(`failed index check for key "${op.key}", current modify index ${entry.ModifyIndex} != ${op.index}`);
  }
  return entry;
}

function checkSession(op: KvOp, existing: KvEntry | undefined): KvEntry {
  const entry = present(op, existing);
  if ((entry.Session ?? '') !== (op.session ?? '')) {
    throw conflict(
      `failed session check for key "${op.key}", current session "${entry.Session ?? ''}" != "${op.session ?? ''}"`,
    );
  }
  return entry;
}

/**
 * Applies one KV operation; returns the entries it reads back (Consul's txn
 * Results: the written entry, the entry read, the tree read), or none.
 */
export function applyKvOp(draft: Draft, op: KvOp): KvEntry[] {
  const tree = op?.verb === 'get-tree' || op?.verb === 'delete-tree';
  checkOp(op, tree);
  const existing = tree ? undefined : draft.kv.get(op.key);
  switch (op.verb) {
    case 'set':
      return [written(draft, op, existing, keepLock(existing))];
    case 'cas':
      if ((existing?.ModifyIndex ?? 0) !== op.index) throw conflict(`failed to set key "${op.key}", index is stale`);
      return [written(draft, op, existing, keepLock(existing))];
    case 'lock':
      return [lock(draft, op, existing)];
    case 'unlock':
      return [unlock(draft, op, existing)];
    case 'get':
    case 'check-index':
    case 'check-session':
      return [
        op.verb === 'get'
          ? present(op, existing)
          : op.verb === 'check-index'
            ? checkIndex(op, existing)
            : checkSession(op, existing),
      ];
    case 'get-tree':
      return draft.kv.keysUnder(op.key).map((k) => draft.kv.get(k)!);
    case 'check-not-exists':
      if (existing !== undefined) throw conflict(`key "${op.key}" exists`);
      return [];
    case 'delete':
      draft.kv.delete(op.key);
      return [];
    case 'delete-cas':
      // A key already gone satisfies any delete-cas (Consul's).
      if (existing !== undefined && existing.ModifyIndex !== op.index)
        throw conflict(`failed to delete key "${op.key}", index is stale`);
      draft.kv.delete(op.key);
      return [];
    case 'delete-tree':
      deleteKvTree(draft, op.key);
      return [];
    default:
      throw new ApplyError(
        'INVALID_ARGUMENT',
        `unknown KV verb ${JSON.stringify((op as { verb?: unknown }).verb)}`,
        'Verb',
      );
  }
}
