// Sessions on a Draft (docs/kv.md, "Sessions"): create checks the node and the
// bound checks, destroy and expiry invalidate, and invalidation releases or
// deletes the session's keys (its Behavior) and starts their lock delay. A
// session also ends when its node is deregistered or a check it is bound to
// goes critical or away, within the same entry (invalidateBound).
import { ApplyError } from './catalog-ops';
import { MAX_LOCK_DELAY_NS, SERF_CHECK_ID, type Session, type SessionInput } from './kv-types';
import type { Draft, NodeRecord } from './tables';

/** The check a session names on its node, or why it cannot hold: undefined when it holds. */
function checkProblem(rec: NodeRecord, checkId: string, serviceCheck: boolean): string | undefined {
  const row = rec.checks.get(checkId);
  // No Serf here: serfHealth, unless the node has a check of that ID, stands for the node being registered.
  if (!row) return !serviceCheck && checkId === SERF_CHECK_ID ? undefined : `Missing check '${checkId}' registration`;
  if (row.check.Status === 'critical') return `Check '${checkId}' is in critical state`;
  return undefined;
}

function boundProblem(rec: NodeRecord, s: Pick<Session, 'NodeChecks' | 'ServiceChecks'>): string | undefined {
  for (const id of s.NodeChecks ?? []) {
    const bad = checkProblem(rec, id, false);
    if (bad) return bad;
  }
  for (const ref of s.ServiceChecks ?? []) {
    const bad = checkProblem(rec, ref.ID, true);
    if (bad) return bad;
  }
  return undefined;
}

export function createSession(draft: Draft, input: SessionInput, agentNode: boolean): Session {
  const id = input?.ID;
  if (typeof id !== 'string' || id === '') throw new ApplyError('INVALID_ARGUMENT', 'ID: required', 'ID');
  if (draft.kv.session(id)) throw new ApplyError('CONFLICT', `Session ID '${id}' already exists`, 'ID');
  if (input.Behavior !== 'release' && input.Behavior !== 'delete') {
    throw new ApplyError('INVALID_ARGUMENT', `Behavior: must be release or delete`, 'Behavior');
  }
  const rec = draft.record(input.Node);
  if (!rec && !agentNode)
    throw new ApplyError('INVALID_ARGUMENT', `Missing node registration: "${input.Node}"`, 'Node');
  const bad = rec ? boundProblem(rec, input) : (input.NodeChecks ?? []).find((c) => c !== SERF_CHECK_ID);
  if (bad) throw new ApplyError('INVALID_ARGUMENT', rec ? bad : `Missing check '${bad}' registration`, 'Checks');
  const session: Session = {
    ID: id,
    Name: String(input.Name ?? ''),
    Node: input.Node,
    LockDelay: Math.min(Math.max(0, Number(input.LockDelay) || 0), MAX_LOCK_DELAY_NS),
    Behavior: input.Behavior,
    TTL: String(input.TTL ?? ''),
    NodeChecks: [...(input.NodeChecks ?? [])].map(String),
    ServiceChecks: input.ServiceChecks
      ? input.ServiceChecks.map((c) => ({ ID: String(c.ID), Namespace: String(c.Namespace ?? '') }))
      : null,
    CreateIndex: draft.index,
    ModifyIndex: draft.index,
  };
  draft.kv.putSession({ session: draft.seal(session), renewIndex: draft.index });
  return session;
}

/** Ends a session: its keys released (or deleted), each then under the session's lock delay. */
export function invalidateSession(draft: Draft, id: string): void {
  const row = draft.kv.session(id);
  if (!row) return;
  const { session } = row;
  const until = draft.kv.now + Math.floor(session.LockDelay / 1e6);
  for (const key of draft.kv.keysHeldBy(id)) {
    const entry = draft.kv.get(key)!;
    if (session.Behavior === 'delete') draft.kv.delete(key);
    else {
      const { Session: _held, ...rest } = entry;
      draft.kv.put(draft.seal({ ...rest, ModifyIndex: draft.index }));
    }
    if (session.LockDelay > 0) draft.kv.setLockDelay(key, until);
  }
  draft.kv.deleteSession(id);
}

export function renewSession(draft: Draft, id: string): void {
  const row = draft.kv.session(id);
  if (!row) throw new ApplyError('NOT_FOUND', `Session id '${id}' not found`, 'id');
  draft.kv.putSession({ session: row.session, renewIndex: draft.index });
}

export function expireSession(draft: Draft, id: string, ifRenewIndex: number): void {
  const row = draft.kv.session(id);
  if (row && row.renewIndex === ifRenewIndex) invalidateSession(draft, id);
}

/**
 * After a command ran: sessions whose node the draft removed, or whose bound
 * check it removed or made critical, end in the same entry (Consul's state store
 * does the same in the write that changes the node or check).
 */
export function invalidateBound(draft: Draft): void {
  if (!draft.kv.hasSessions()) return;
  const changed = draft.nodeChanges().filter((c) => c.before !== c.after);
  if (changed.length === 0) return;
  const byNode = new Map(changed.map((c) => [c.name, c.after]));
  for (const id of draft.kv.sessionIds()) {
    const { session } = draft.kv.session(id)!;
    if (!byNode.has(session.Node)) continue;
    const rec = byNode.get(session.Node);
    if (!rec || boundProblem(rec, session)) invalidateSession(draft, id);
  }
}
