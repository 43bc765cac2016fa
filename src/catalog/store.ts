// The Catalog: the write path (append a command, wait until it is applied here)
// and the read side (a state machine fed by tailing the log). Every entry in the
// log is applied, including those appended by other hub processes sharing it.
import { setTimeout as sleep } from 'node:timers/promises';
import type pino from 'pino';
import { HubError, isHubError } from '../errors';
import type { Log, LogEntry } from '../log/log';
import type { AppliedInfo, Catalog, CatalogListener } from './catalog';
import type { ApplyResult, Command } from './commands';
import { createCheckedParses } from './checked-parses';
import { createStateMachine } from './state';
import { createChangeWaiters, createIndexWaiters } from './waiters';

export interface CatalogOptions {
  log: Log;
  logger: pino.Logger;
  /** Snapshot and compact the log after this many applied entries (0 or absent = never). */
  compactEvery?: number;
  /** Entries kept behind the snapshot when compacting (a resume window for other readers). */
  compactKeepTail?: number;
  /**
   * Called when a local submit passed the check against the applied state but
   * was refused when its entry was applied (an entry appended in between changed
   * the outcome). Such an entry spends an index; the hub counts these.
   */
  onRefusedAtApply?(type: string): void;
}

/** Results of entries applied before their submit learnt its index; bounded so others' entries cannot pile up. */
const UNCLAIMED_LIMIT = 10_000;
const RETRY_MS = 250;

interface Pending {
  resolve(result: ApplyResult): void;
  reject(err: unknown): void;
}

export async function createCatalog(options: CatalogOptions): Promise<Catalog> {
  const { log, logger } = options;
  const compactEvery = options.compactEvery ?? 0;
  const keepTail = options.compactKeepTail ?? 10_000;
  // Replaced only when the log lost entries this catalog had applied (rebuildFromLog).
  let sm = createStateMachine();
  const appliedListeners = new Set<CatalogListener>();
  const resetListeners = new Set<(index: bigint) => void>();
  const pending = new Map<bigint, Pending>();
  const unclaimed = new Map<bigint, ApplyResult>();
  let inflight = 0;
  let stopped: HubError | undefined;
  let sinceCompact = 0;
  let compaction: Promise<void> | undefined;
  const abort = new AbortController();
  const waiters = createIndexWaiters(() => sm.lastIndex(), () => stopped);
  const changes = createChangeWaiters(() => stopped);

  const snap = await log.loadSnapshot();
  if (snap) sm.restore(snap.state);

  function notify<A extends unknown[]>(listeners: Iterable<(...args: A) => void>, ...args: A): void {
    for (const listener of listeners) {
      try {
        listener(...args);
      } catch (err) {
        // A broken listener must not stop the catalog or starve the others.
        logger.error({ err }, 'catalog listener threw');
      }
    }
  }

  function parseCommand(payload: string): Command {
    try {
      return JSON.parse(payload) as Command;
    } catch {
      // Refused deterministically by apply (unknown type), like on every replica.
      return { type: 'unparseable' } as unknown as Command;
    }
  }

  /** This hub's submits in flight: the parses their checks ran on, applied as their entries. */
  const checkedParses = createCheckedParses();

  function applyEntry(entry: LogEntry): void {
    if (entry.index <= sm.lastIndex()) return; // redelivery after a reconnect
    applyCommand(entry.index, checkedParses.take(entry.payload) ?? parseCommand(entry.payload), true);
  }

  /** `owned`: the command is the entry's own parse, read by nothing after its apply (StateMachine.apply). */
  function applyCommand(index: bigint, command: Command, owned = false): ApplyResult {
    const applied = sm.apply(index, command, owned);
    settle(index, applied.result);
    if (command.type === 'restore' && applied.result.ok) notify(resetListeners, index);
    const info: AppliedInfo = { ttlTouched: applied.ttlTouched };
    if (applied.aclAffected) info.aclAffected = applied.aclAffected;
    if (applied.connect) info.connect = applied.connect;
    notify(appliedListeners, index, applied.events, info);
    waiters.advance(index);
    if (applied.moved === 'all') changes.all();
    else changes.moved(applied.moved);
    maybeCompact();
    return applied.result;
  }

  function settle(index: bigint, result: ApplyResult): void {
    const p = pending.get(index);
    if (p) {
      pending.delete(index);
      p.resolve(result);
    } else if (inflight > 0) {
      unclaimed.set(index, result);
      if (unclaimed.size > UNCLAIMED_LIMIT) unclaimed.delete(unclaimed.keys().next().value!);
    }
  }

  function maybeCompact(): void {
    if (compactEvery <= 0 || ++sinceCompact < compactEvery || compaction) return;
    sinceCompact = 0;
    compaction = (async () => {
      // Hubs sharing a log reach the same count together: one of them compacts, the
      // others skip before they spend time on a snapshot.
      if (log.claimCompaction && !(await log.claimCompaction())) return;
      const snapshot = { index: sm.lastIndex(), state: sm.snapshot() };
      await log.compact(snapshot, keepTail);
      logger.info({ index: snapshot.index.toString() }, 'log compacted');
    })()
      .catch((err: unknown) => logger.error({ err }, 'log compaction failed'))
      .finally(() => (compaction = undefined));
  }

  /**
   * Another hub compacted past our position (we fell behind the trimmed tail): jump
   * to its snapshot. It is applied as a `restore` command at the snapshot's index,
   * so it takes the path of every entry (listeners, subscribers reset, waiters).
   */
  async function resetFromSnapshot(cause: unknown): Promise<void> {
    const s = await log.loadSnapshot();
    if (!s || s.index <= sm.lastIndex()) throw new HubError('INTERNAL', 'log compacted past this catalog without a usable snapshot', { cause });
    for (const [index, p] of pending) {
      if (index > s.index) continue;
      pending.delete(index);
      p.reject(new HubError('INTERNAL', `entry ${index} was compacted away before it was applied here; its outcome is unknown`));
    }
    logger.warn({ from: sm.lastIndex().toString(), index: s.index.toString() }, 'log compacted past this catalog; restoring its snapshot');
    const result = applyCommand(s.index, { type: 'restore', state: s.state });
    if (!result.ok) throw new HubError('INTERNAL', `the log's snapshot at ${s.index} is unreadable: ${result.error?.message}`, { cause });
  }

  /**
   * The log no longer holds entries this catalog applied (a Redis failover to a
   * replica that had not received them). Indexes of the lost entries will be handed
   * out again, so the state cannot be patched: rebuild it from the log as it now is
   * (snapshot + entries), tell subscribers to reset, and give every waiting submit
   * an unknown outcome (its index may now name someone else's entry).
   */
  async function rebuildFromLog(cause: unknown): Promise<void> {
    const snap = await log.loadSnapshot();
    const fresh = createStateMachine();
    if (snap) fresh.restore(snap.state);
    for (;;) {
      const page = await log.read(fresh.lastIndex() + 1n, 1_000);
      for (const entry of page) fresh.apply(entry.index, parseCommand(entry.payload), true);
      if (page.length < 1_000) break;
    }
    logger.error({ err: cause, had: sm.lastIndex().toString(), now: fresh.lastIndex().toString() }, 'the log lost entries this hub had applied; rebuilt the state from the log');
    sm = fresh;
    const unknown = new HubError('LOG_OUTCOME_UNKNOWN', 'the log lost entries in a failover; the outcome of this write is unknown', { cause });
    for (const p of pending.values()) p.reject(unknown);
    pending.clear();
    unclaimed.clear();
    notify(resetListeners, sm.lastIndex());
    waiters.advance(sm.lastIndex());
  }

  function stop(err: HubError): void {
    if (stopped) return;
    stopped = err;
    for (const p of pending.values()) p.reject(err);
    pending.clear();
    unclaimed.clear();
    waiters.rejectAll(err);
    changes.rejectAll(err);
  }

  async function tailLoop(): Promise<void> {
    let rebuildCause: unknown;
    while (!abort.signal.aborted) {
      try {
        if (rebuildCause !== undefined) {
          await rebuildFromLog(rebuildCause);
          rebuildCause = undefined;
        }
        for await (const entry of log.tail(sm.lastIndex() + 1n, abort.signal)) applyEntry(entry);
        if (!abort.signal.aborted) stop(new HubError('LOG_CLOSED', 'the log was closed under the catalog'));
        return;
      } catch (err) {
        if (abort.signal.aborted) return;
        if (isHubError(err, 'LOG_COMPACTED')) {
          try {
            await resetFromSnapshot(err);
            continue;
          } catch (fatal) {
            stop(fatal instanceof HubError ? fatal : new HubError('INTERNAL', 'restoring the log snapshot failed', { cause: fatal }));
            logger.error({ err: fatal }, 'catalog stopped: cannot follow the log');
            return;
          }
        }
        if (isHubError(err, 'LOG_CLOSED')) {
          stop(err);
          return;
        }
        if (isHubError(err, 'LOG_REWOUND')) {
          rebuildCause = err; // rebuilt before tailing again (retried until it succeeds)
          continue;
        }
        logger.error({ err }, 'tailing the log failed; retrying');
        await sleep(RETRY_MS, undefined, { signal: abort.signal }).catch(() => undefined);
      }
    }
  }

  function serialise(command: Command): string {
    try {
      return JSON.stringify(command);
    } catch (err) {
      throw new HubError('INVALID_ARGUMENT', 'command is not serialisable as JSON', { cause: err });
    }
  }

  /**
   * While the log is unreachable past its write timeout, `lost` is told the log's
   * error. One watch of the log serves every wait in flight: a watch per write
   * (its AbortController, its listeners and, when the write settled, an abort
   * building a DOMException) cost ~2 % of a write's CPU.
   */
  const lostWatchers = new Set<(err: HubError) => void>();
  let reachability: AbortController | undefined;

  function watchReachability(): void {
    if (reachability || !log.unreachable) return;
    const watch = (reachability = new AbortController());
    log.unreachable(watch.signal).then(
      (err) => {
        if (reachability === watch) reachability = undefined;
        // undefined: the log closed or the watch was stopped; the waits end with the catalog.
        if (err) for (const lost of [...lostWatchers]) lost(err);
      },
      (err: unknown) => {
        if (reachability === watch) reachability = undefined;
        logger.error({ err }, 'watching the log for an outage failed');
      },
    );
  }

  /**
   * Waits for this hub to apply something. Applying needs the log (the tail reads the
   * entries before it, perhaps another hub's), so while the log is unreachable the
   * wait ends with the log's own 503 after its write timeout instead of lasting the
   * whole outage (a request, or a shutdown waiting for it, would hang): `cancel` then
   * drops the wait. `outcome` says what became of the write; `code` is LOG_UNAVAILABLE
   * only when nothing was written (a write in the log is not "not applied").
   */
  function whileReachable<T>(
    wait: Promise<T>,
    cancel: () => void,
    outcome: string,
    code: 'LOG_UNAVAILABLE' | 'LOG_OUTCOME_UNKNOWN',
  ): Promise<T> {
    if (!log.unreachable) return wait;
    watchReachability();
    return new Promise<T>((resolve, reject) => {
      const lost = (err: HubError) => {
        lostWatchers.delete(lost);
        cancel();
        reject(new HubError(code, `${err.message}; ${outcome}`, { cause: err }));
      };
      lostWatchers.add(lost);
      wait.then(
        (value) => {
          lostWatchers.delete(lost);
          resolve(value);
        },
        (err: unknown) => {
          lostWatchers.delete(lost);
          reject(err);
        },
      );
    });
  }

  /** Appends one entry and resolves with its result once it is applied here. */
  async function appendAndApply(payload: string): Promise<ApplyResult> {
    inflight++;
    let index: bigint;
    try {
      [index] = (await log.append([payload])) as [bigint];
    } finally {
      inflight--;
    }
    const early = unclaimed.get(index);
    unclaimed.delete(index);
    if (inflight === 0) unclaimed.clear();
    if (early) return early;
    if (stopped) throw stopped;
    if (index <= sm.lastIndex()) {
      // Applied before we learnt the index and its result is gone, or the log lost
      // entries in a failover and handed this index out again (the hub rebuilds, and
      // the entry takes effect then): either way this hub cannot tell the outcome now.
      throw new HubError('LOG_OUTCOME_UNKNOWN', `entry ${index} is at or below what this hub has applied (${sm.lastIndex()}); its outcome is unknown here`);
    }
    let p: Pending | undefined;
    return whileReachable(
      new Promise<ApplyResult>((resolve, reject) => {
        p = { resolve, reject };
        pending.set(index, p);
      }),
      () => pending.get(index) === p && pending.delete(index),
      `the write is in the log at index ${index} and takes effect, but this hub cannot apply it until the log is back`,
      'LOG_OUTCOME_UNKNOWN',
    );
  }

  const target = await log.lastIndex();
  const loop = tailLoop();
  // Ready once the log as it was at open time is applied (replay), so reads are current.
  try {
    await waiters.wait(target - 1n);
  } catch (err) {
    abort.abort();
    await loop;
    throw err;
  }

  const catalog: Catalog = {
    lastIndex: () => sm.lastIndex(),
    nodes: () => sm.nodes(),
    node: (name) => sm.node(name),
    nodeChecks: (node) => sm.nodeChecks(node),
    services: () => sm.services(),
    serviceInstances: (service) => sm.serviceInstances(service),
    serviceChecks: (service) => sm.serviceChecks(service),
    checksInState: (state) => sm.checksInState(state),
    configEntries: (kind) => sm.configEntries(kind),
    configEntry: (kind, name) => sm.configEntry(kind, name),
    serviceNames: () => sm.serviceNames(),
    ttlChecks: () => sm.ttlChecks(),
    ttlCheckStates: () => sm.ttlCheckStates(),
    ttlCheck: (node, checkId) => sm.ttlCheck(node, checkId),
    acl: () => sm.acl(),
    connectCa: () => sm.connectCa(),

    async submit(command) {
      if (stopped) throw stopped;
      const payload = serialise(command);
      // The check runs on the payload's own parse, which nobody else holds: what the
      // log will carry (not the caller's object, which is never stored or changed),
      // checked without copying what it stores, and then applied as the entry.
      const shared = checkedParses.eligible(command, payload);
      const checked = shared ? parseCommand(payload) : command;
      // Refusals and no-ops are decided against the applied state and never
      // reach the log: a refused request must not grow it, move the index or
      // wake blocking queries. The verdict is confirmed after catching up with
      // everything the log already holds, so it is never based on a stale state.
      let verdict = sm.check(checked, shared);
      if (!verdict.changes) {
        const last = await log.lastIndex();
        const caughtUp = new AbortController();
        const caughtUpWait = waiters.wait(last - 1n, caughtUp.signal);
        await whileReachable(caughtUpWait, () => caughtUp.abort(), 'nothing was written', 'LOG_UNAVAILABLE');
        verdict = sm.check(checked, shared);
        if (!verdict.changes) return verdict.result;
      }
      if (shared) checkedParses.keep(payload, checked);
      let result: ApplyResult;
      try {
        result = await appendAndApply(payload);
      } finally {
        // Not applied here (refused, outcome unknown) or already taken: never applied later from here.
        if (shared) checkedParses.drop(payload, checked);
      }
      // Something appended concurrently (here or by another hub) won the race.
      if (!result.ok) options.onRefusedAtApply?.(command.type);
      return result;
    },

    waitForIndex: (after, signal) => waiters.wait(after, signal),

    waitForChange: (watch, signal) => (watch ? changes.wait(watch, signal) : waiters.wait(sm.lastIndex(), signal)),

    onApplied(listener) {
      appliedListeners.add(listener);
      return () => appliedListeners.delete(listener);
    },

    onReset(listener) {
      resetListeners.add(listener);
      return () => resetListeners.delete(listener);
    },

    snapshot: () => ({ index: sm.lastIndex(), state: sm.snapshot() }),
    fork: () => sm.fork(),

    async close() {
      if (abort.signal.aborted) return;
      abort.abort();
      reachability?.abort();
      stop(new HubError('SHUTTING_DOWN', 'the catalog is closing'));
      await loop;
      await compaction;
      appliedListeners.clear();
      resetListeners.clear();
    },
  };
  // Index 1 stands for "the empty catalog": snapshots and blocking reads clamp 0
  // to 1, as Consul does. A fresh log spends index 1 on a no-op entry, so the
  // first real change gets index 2 and a reader holding index 1 is woken by it.
  // The origin entry changes nothing, so it bypasses submit's no-op rule.
  if (sm.lastIndex() === 0n) await appendAndApply(serialise({ type: 'txn', ops: [] }));
  return catalog;
}
