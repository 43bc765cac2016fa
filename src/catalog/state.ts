// The deterministic catalog state machine: apply(index, command) → result +
// events, and every CatalogReader query. No clock, no randomness: everything
// apply needs is in the command or in the state.

import { applyAcl, isAclCommand } from '../acl/state';
import { applyConnect, isConnectCommand } from '../connect/state';
import type { ConnectChange } from '../connect/types';
import { HubError } from '../errors';
import type { CatalogReader, CheckRef } from './catalog';
import {
  ApplyError,
  checkStatus,
  deleteCheck,
  deleteService,
  expireCheck,
  updateCheckStatus,
  upsertCheck,
  upsertNode,
  upsertService,
} from './catalog-ops';
import type { ApplyResult, Command } from './commands';
import { commit, hasChanges } from './commit';
import { deleteConfigEntry, setConfigEntry } from './config-ops';
import { applyKvOp } from './kv-ops';
import { createKvReader } from './kv-reads';
import { forkKvTables } from './kv-tables';
import { createReader } from './reads';
import { createSession, expireSession, invalidateBound, invalidateSession, renewSession } from './session-ops';
import { upsertSidecar } from './sidecar-ops';
import { parse, serialise } from './snapshot';
import { Draft, emptyTables, type Tables } from './tables';
import { applyTxn } from './txn';
import type { CatalogEvent } from './types';

export interface Applied {
  result: ApplyResult;
  events: CatalogEvent[];
  /** TTL checks whose row this entry touched (see AppliedInfo.ttlTouched). */
  ttlTouched: CheckRef[];
  /** Tokens whose rights the entry may have changed (see AppliedInfo.aclAffected). */
  aclAffected?: string[] | 'all';
  /** The blocking-query indexes the entry moved (watch-keys.ts); 'all' when it replaced the state. */
  moved: readonly string[] | 'all';
  /** What a CA entry changed (see AppliedInfo.connect). */
  connect?: ConnectChange;
  /** Sessions the entry created, renewed or ended (see AppliedInfo.sessionsTouched). */
  sessionsTouched?: string[] | 'all';
}

/** What applying a command to the current state would do; nothing is changed. */
export interface Verdict {
  /** As apply would answer, but with `index` = lastIndex() (no entry was spent). */
  result: ApplyResult;
  /** False when the command would be refused, or would change nothing at all (not even a TTL refresh). */
  changes: boolean;
}

export interface StateMachine extends CatalogReader {
  /**
   * Applies the entry at `index` (must be greater than lastIndex()). Never throws for bad commands: it refuses them.
   * `owned`: the command is a JSON.parse of the entry that nobody else holds or reads
   * afterwards; its objects may then become the stored ones (the outcome is the same).
   */
  apply(index: bigint, command: Command, owned?: boolean): Applied;
  /**
   * Runs `command` against the current state without committing it: the same
   * rules as apply, so the write path can answer refusals and no-ops without
   * appending them to the log.
   * `owned`: as for apply; the command's objects may then be stamped in place (they
   * carry this run's indexes afterwards), so it must be a parse nobody else reads.
   */
  check(command: Command, owned?: boolean): Verdict;
  /** The whole state, deterministic for equal states. */
  snapshot(): string;
  /** Replaces the whole state with a snapshot() string (loading a log snapshot); lastIndex becomes the snapshot's. */
  restore(state: string): void;
  /**
   * A state machine of its own, starting from this one's state at lastIndex():
   * what either applies later, the other never sees. Costs a copy of the
   * tables' maps, not of the records (committed records are never mutated), so
   * it is cheap next to snapshot() + restore(); the dry run uses it per request.
   */
  fork(): StateMachine;
  /** Sessions in the state, in O(1) (the write path stamps the time on catalog writes while there are any). */
  sessionCount(): number;
}

function refused(index: bigint, err: unknown): Applied {
  const e =
    err instanceof ApplyError
      ? err
      : new ApplyError('INVALID_ARGUMENT', `command refused: ${err instanceof Error ? err.message : String(err)}`);
  const error: NonNullable<ApplyResult['error']> = { code: e.code, message: e.message };
  if (e.field !== undefined) error.field = e.field;
  return { result: { index, ok: false, error }, events: [], ttlTouched: [], moved: [] };
}

/** Runs one command against the draft; returns extra result fields, or throws ApplyError to refuse. */
function run(draft: Draft, cmd: Command): Partial<ApplyResult> {
  if (isAclCommand(cmd)) {
    const { next, change } = applyAcl(draft.acl(), cmd, draft.index);
    draft.putAcl(next, change);
    return {};
  }
  if (isConnectCommand(cmd)) {
    const { next, change } = applyConnect(draft.connect(), cmd, draft.index);
    draft.putConnect(next, change);
    return {};
  }
  switch (cmd?.type) {
    case 'register': {
      const name = cmd.node?.Node;
      if (typeof name !== 'string' || name === '') throw new ApplyError('INVALID_ARGUMENT', 'Node: required', 'Node');
      if (!cmd.skipNodeUpdate || !draft.record(name)) upsertNode(draft, cmd.node);
      if (cmd.service) upsertService(draft, name, cmd.service);
      (cmd.checks ?? []).forEach((check, i) => upsertCheck(draft, name, check, `Checks[${i}]`));
      if (cmd.sidecar) upsertSidecar(draft, name, cmd.sidecar);
      return {};
    }
    case 'deregister': {
      if (!draft.record(cmd.node)) return {};
      if (!cmd.serviceId && !cmd.checkId) draft.deleteNode(cmd.node);
      if (cmd.serviceId) deleteService(draft, cmd.node, cmd.serviceId);
      if (cmd.checkId) deleteCheck(draft, cmd.node, cmd.checkId);
      return {};
    }
    case 'check-update':
      updateCheckStatus(draft, cmd.node, cmd.checkId, checkStatus(cmd.status, 'Status'), String(cmd.output ?? ''));
      return {};
    case 'check-ttl-expire':
      expireCheck(draft, cmd.node, cmd.checkId, cmd.ifModifyIndex, String(cmd.output ?? ''));
      return {};
    case 'config-set':
      setConfigEntry(draft, cmd.entry, cmd.cas);
      return {};
    case 'config-delete':
      deleteConfigEntry(draft, cmd.kind, cmd.name, cmd.cas);
      return {};
    case 'txn':
    case 'kv-txn': {
      const { results, errors } = applyTxn(draft, cmd.ops);
      if (errors.length > 0) throw new TxnRollback(errors);
      return { txnResults: results };
    }
    default:
      return runKv(draft, cmd);
  }
}

/** The KV and session commands. */
function runKv(draft: Draft, cmd: Command): Partial<ApplyResult> {
  switch (cmd?.type) {
    case 'kv':
      applyKvOp(draft, cmd.op);
      return {};
    case 'session-create':
      createSession(draft, cmd.session, cmd.agentNode === true);
      return {};
    case 'session-destroy':
      invalidateSession(draft, String(cmd.id));
      return {};
    case 'session-renew':
      renewSession(draft, String(cmd.id));
      return {};
    case 'session-expire':
      expireSession(draft, String(cmd.id), cmd.ifRenewIndex);
      return {};
    default:
      throw new ApplyError(
        'INVALID_ARGUMENT',
        `unknown command type ${JSON.stringify((cmd as { type?: unknown })?.type)}`,
        'type',
      );
  }
}

/** The wall-clock time a command carries (kv and session commands always; catalog ones when sessions exist). */
export function commandNow(command: Command): number | undefined {
  const now = (command as { now?: unknown } | undefined)?.now;
  return typeof now === 'number' && Number.isFinite(now) ? now : undefined;
}

class TxnRollback extends Error {
  constructor(readonly errors: NonNullable<ApplyResult['txnErrors']>) {
    super(errors.map((e) => `op ${e.OpIndex}: ${e.What}`).join('; '));
  }
}

export function createStateMachine(): StateMachine {
  return machineOver(emptyTables(), 0n);
}

/** The maps commit() changes in place, copied; records, entries, ACL and CA states are shared (replaced, never mutated). */
function forkTables(t: Tables): Tables {
  const ix = t.indexes;
  return {
    nodes: new Map(t.nodes),
    configs: new Map(t.configs),
    byServiceName: new Map([...t.byServiceName].map(([name, keys]) => [name, new Set(keys)])),
    indexes: {
      ...ix,
      node: new Map(ix.node),
      service: new Map(ix.service),
      configKind: new Map(ix.configKind),
      configEntry: new Map(ix.configEntry),
    },
    acl: t.acl,
    connect: t.connect,
    kvs: forkKvTables(t.kvs),
  };
}

/** Runs the command on a draft at `index`: the staged draft and extra result fields, or the refusal. */
function execute(
  tables: Tables,
  index: bigint,
  command: Command,
  dry = false,
  owned = false,
): { draft: Draft; extra: Partial<ApplyResult> } | { refusal: ApplyResult } {
  const draft = new Draft(tables, Number(index), dry, owned);
  const now = commandNow(command);
  if (now !== undefined) draft.kv.now = now;
  try {
    const extra = run(draft, command);
    invalidateBound(draft);
    return { draft, extra };
  } catch (err) {
    if (err instanceof TxnRollback) {
      return {
        refusal: {
          index,
          ok: false,
          error: { code: 'CONFLICT', message: `transaction rolled back: ${err.message}` },
          txnErrors: err.errors,
        },
      };
    }
    return { refusal: refused(index, err).result };
  }
}

/** Whether a restore entry's state parses: a restore changes everything, so it always has changes. */
function checkRestore(lastIndex: bigint, state: string): Verdict {
  try {
    parse(state);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return { result: refused(lastIndex, new ApplyError('INVALID_ARGUMENT', message, 'state')).result, changes: false };
  }
  return { result: { index: lastIndex, ok: true }, changes: true };
}

function machineOver(initial: Tables, initialIndex: bigint): StateMachine {
  let tables: Tables = initial;
  let lastIndex = initialIndex;
  const reader = {
    ...createReader(
      () => tables,
      () => lastIndex,
    ),
    ...createKvReader(() => tables),
  };

  function apply(index: bigint, command: Command, owned = false): Applied {
    if (index <= lastIndex) {
      throw new HubError('INTERNAL', `apply: index ${index} is not after the last applied index ${lastIndex}`);
    }
    if (command?.type === 'restore') {
      const restored = restoreAt(index, command.state);
      lastIndex = index;
      if ('refusal' in restored) return restored.refusal;
      tables = restored.tables;
      return restored.applied;
    }
    const outcome = execute(tables, index, command, false, owned);
    lastIndex = index;
    if ('refusal' in outcome) return { result: outcome.refusal, events: [], ttlTouched: [], moved: [] };
    const { events, ttlTouched, moved, aclAffected, connect, sessionsTouched } = commit(tables, outcome.draft, index);
    const extra = {
      ...(aclAffected ? { aclAffected } : {}),
      ...(connect ? { connect } : {}),
      ...(sessionsTouched.length ? { sessionsTouched } : {}),
    };
    return { result: { index, ok: true, ...outcome.extra }, events, ttlTouched, moved, ...extra };
  }

  function check(command: Command, owned = false): Verdict {
    if (command?.type === 'restore') return checkRestore(lastIndex, command.state);
    // The draft is stamped with the index the entry would get if appended now; only the verdict is kept.
    const outcome = execute(tables, lastIndex + 1n, command, true, owned);
    if ('refusal' in outcome) return { result: { ...outcome.refusal, index: lastIndex }, changes: false };
    return { result: { index: lastIndex, ok: true, ...outcome.extra }, changes: hasChanges(outcome.draft) };
  }

  return {
    ...reader,
    apply,
    check,
    snapshot: () => serialise(tables, lastIndex),
    restore(state: string) {
      const parsed = parse(state);
      tables = parsed.tables;
      lastIndex = parsed.index;
    },
    fork: () => machineOver(forkTables(tables), lastIndex),
    sessionCount: () => tables.kvs.sessions.size,
  };
}

/**
 * A restore entry at `index`: the tables to switch to and what the entry did, or its refusal.
 * The log's own snapshot at this very index (a hub that fell behind a compaction) is the
 * state every other hub has: restored exactly, indexes included. A state from another
 * point in time may differ in anything: every blocking query must wake, so every index
 * moves to this entry.
 */
function restoreAt(index: bigint, state: string): { tables: Tables; applied: Applied } | { refusal: Applied } {
  let restored: { tables: Tables; index: bigint };
  try {
    restored = parse(state);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return { refusal: refused(index, new ApplyError('INVALID_ARGUMENT', message, 'state')) };
  }
  if (restored.index !== index) bumpAll(restored.tables, Number(index));
  const leaves = [...restored.tables.connect.leaves.keys()];
  const applied: Applied = {
    result: { index, ok: true },
    events: [],
    ttlTouched: [],
    moved: 'all',
    aclAffected: 'all',
    sessionsTouched: 'all',
    connect: { roots: true, leaves },
  };
  return { tables: restored.tables, applied };
}

function bumpAll(tables: Tables, index: number): void {
  const ix = tables.indexes;
  ix.nodes = ix.services = ix.checks = ix.configs = ix.kv = ix.kvDeletes = ix.sessions = index;
  for (const m of [ix.node, ix.service, ix.configKind, ix.configEntry]) for (const k of m.keys()) m.set(k, index);
  const ca = tables.connect;
  tables.connect = {
    ...ca,
    rootsIndex: index,
    leaves: new Map([...ca.leaves].map(([k, l]) => [k, { ...l, ModifyIndex: index }])),
  };
}
