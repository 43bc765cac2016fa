// The Catalog: the write path (append a command, wait until it is applied here)
// and the read side (a state machine fed by tailing the log). Every entry in the
// log is applied, including those appended by other hub processes sharing it.
// createCatalog wires the parts below, which share one CatalogCore: applying
// entries, recovering from a compacted or rewound log, tailing, watching the
// log's reachability, appending, and submitting.
import { setTimeout as sleep } from 'node:timers/promises';
import type pino from 'pino';
import { HubError, isHubError } from '../errors';
import type { Log, LogEntry } from '../log/log';
import type { AppliedInfo, Catalog, CatalogListener, CatalogReader } from './catalog';
import { type CheckedParses, createCheckedParses } from './checked-parses';
import type { ApplyResult, Command } from './commands';
import { commandNow, createStateMachine, type StateMachine } from './state';
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
  /** The wall clock stamped on commands that need one (sessions' lock delays); tests pass their own. */
  now?: () => number;
}

/** Results of entries applied before their submit learnt its index; bounded so others' entries cannot pile up. */
const UNCLAIMED_LIMIT = 10_000;
const RETRY_MS = 250;

interface Pending {
  resolve(result: ApplyResult): void;
  reject(err: unknown): void;
}

/** What the parts of one catalog share. `sm` is replaced only when the log lost entries this catalog had applied. */
interface CatalogCore {
  readonly log: Log;
  readonly logger: pino.Logger;
  readonly options: CatalogOptions;
  sm: StateMachine;
  readonly appliedListeners: Set<CatalogListener>;
  readonly resetListeners: Set<(index: bigint) => void>;
  readonly pending: Map<bigint, Pending>;
  readonly unclaimed: Map<bigint, ApplyResult>;
  inflight: number;
  stopped: HubError | undefined;
  readonly abort: AbortController;
  readonly waiters: ReturnType<typeof createIndexWaiters>;
  readonly changes: ReturnType<typeof createChangeWaiters>;
  /** This hub's submits in flight: the parses their checks ran on, applied as their entries. */
  readonly checkedParses: CheckedParses;
  compaction: Promise<void> | undefined;
}

function newCore(options: CatalogOptions): CatalogCore {
  const core: CatalogCore = {
    log: options.log,
    logger: options.logger,
    options,
    sm: createStateMachine(),
    appliedListeners: new Set(),
    resetListeners: new Set(),
    pending: new Map(),
    unclaimed: new Map(),
    inflight: 0,
    stopped: undefined,
    abort: new AbortController(),
    waiters: createIndexWaiters(
      () => core.sm.lastIndex(),
      () => core.stopped,
    ),
    changes: createChangeWaiters(() => core.stopped),
    checkedParses: createCheckedParses(),
    compaction: undefined,
  };
  return core;
}

function notify<A extends unknown[]>(core: CatalogCore, listeners: Iterable<(...args: A) => void>, ...args: A): void {
  for (const listener of listeners) {
    try {
      listener(...args);
    } catch (err) {
      // A broken listener must not stop the catalog or starve the others.
      core.logger.error({ err }, 'catalog listener threw');
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

function serialise(command: Command): string {
  try {
    return JSON.stringify(command);
  } catch (err) {
    throw new HubError('INVALID_ARGUMENT', 'command is not serialisable as JSON', { cause: err });
  }
}

/** Applies entries: settles their submits, tells listeners and waiters, compacts now and then. */
function createApplier(core: CatalogCore) {
  const compactEvery = core.options.compactEvery ?? 0;
  const keepTail = core.options.compactKeepTail ?? 10_000;
  let sinceCompact = 0;

  function settle(index: bigint, result: ApplyResult): void {
    const p = core.pending.get(index);
    if (p) {
      core.pending.delete(index);
      p.resolve(result);
    } else if (core.inflight > 0) {
      core.unclaimed.set(index, result);
      if (core.unclaimed.size > UNCLAIMED_LIMIT) core.unclaimed.delete(core.unclaimed.keys().next().value!);
    }
  }

  function maybeCompact(): void {
    if (compactEvery <= 0 || ++sinceCompact < compactEvery || core.compaction) return;
    sinceCompact = 0;
    core.compaction = (async () => {
      // Hubs sharing a log reach the same count together: one of them compacts, the
      // others skip before they spend time on a snapshot.
      if (core.log.claimCompaction && !(await core.log.claimCompaction())) return;
      const snapshot = { index: core.sm.lastIndex(), state: core.sm.snapshot() };
      await core.log.compact(snapshot, keepTail);
      core.logger.info({ index: snapshot.index.toString() }, 'log compacted');
    })()
      .catch((err: unknown) => core.logger.error({ err }, 'log compaction failed'))
      .finally(() => (core.compaction = undefined));
  }

  /** `owned`: the command is the entry's own parse, read by nothing after its apply (StateMachine.apply). */
  function applyCommand(index: bigint, command: Command, owned = false): ApplyResult {
    const applied = core.sm.apply(index, command, owned);
    settle(index, applied.result);
    if (command.type === 'restore' && applied.result.ok) notify(core, core.resetListeners, index);
    const info: AppliedInfo = { ttlTouched: applied.ttlTouched };
    if (applied.aclAffected) info.aclAffected = applied.aclAffected;
    if (applied.connect) info.connect = applied.connect;
    if (applied.sessionsTouched) info.sessionsTouched = applied.sessionsTouched;
    notify(core, core.appliedListeners, index, applied.events, info);
    core.waiters.advance(index);
    if (applied.moved === 'all') core.changes.all();
    else core.changes.moved(applied.moved);
    maybeCompact();
    return applied.result;
  }

  function applyEntry(entry: LogEntry): void {
    if (entry.index <= core.sm.lastIndex()) return; // redelivery after a reconnect
    applyCommand(entry.index, core.checkedParses.take(entry.payload) ?? parseCommand(entry.payload), true);
  }

  return { applyCommand, applyEntry };
}
type Applier = ReturnType<typeof createApplier>;

/**
 * Another hub compacted past our position (we fell behind the trimmed tail): jump
 * to its snapshot. It is applied as a `restore` command at the snapshot's index,
 * so it takes the path of every entry (listeners, subscribers reset, waiters).
 */
async function resetFromSnapshot(core: CatalogCore, applier: Applier, cause: unknown): Promise<void> {
  const s = await core.log.loadSnapshot();
  if (!s || s.index <= core.sm.lastIndex()) {
    throw new HubError('INTERNAL', 'log compacted past this catalog without a usable snapshot', { cause });
  }
  for (const [index, p] of core.pending) {
    if (index > s.index) continue;
    core.pending.delete(index);
    p.reject(
      new HubError('INTERNAL', `entry ${index} was compacted away before it was applied here; its outcome is unknown`),
    );
  }
  const from = core.sm.lastIndex().toString();
  core.logger.warn({ from, index: s.index.toString() }, 'log compacted past this catalog; restoring its snapshot');
  const result = applier.applyCommand(s.index, { type: 'restore', state: s.state });
  if (!result.ok) {
    throw new HubError('INTERNAL', `the log's snapshot at ${s.index} is unreadable: ${result.error?.message}`, {
      cause,
    });
  }
}

/**
 * The log no longer holds entries this catalog applied (a Redis failover to a
 * replica that had not received them). Indexes of the lost entries will be handed
 * out again, so the state cannot be patched: rebuild it from the log as it now is
 * (snapshot + entries), tell subscribers to reset, and give every waiting submit
 * an unknown outcome (its index may now name someone else's entry).
 */
async function rebuildFromLog(core: CatalogCore, cause: unknown): Promise<void> {
  const snap = await core.log.loadSnapshot();
  const fresh = createStateMachine();
  if (snap) fresh.restore(snap.state);
  for (;;) {
    const page = await core.log.read(fresh.lastIndex() + 1n, 1_000);
    for (const entry of page) fresh.apply(entry.index, parseCommand(entry.payload), true);
    if (page.length < 1_000) break;
  }
  const had = core.sm.lastIndex().toString();
  core.logger.error(
    { err: cause, had, now: fresh.lastIndex().toString() },
    'the log lost entries this hub had applied; rebuilt the state from the log',
  );
  core.sm = fresh;
  const unknown = new HubError(
    'LOG_OUTCOME_UNKNOWN',
    'the log lost entries in a failover; the outcome of this write is unknown',
    { cause },
  );
  for (const p of core.pending.values()) p.reject(unknown);
  core.pending.clear();
  core.unclaimed.clear();
  notify(core, core.resetListeners, core.sm.lastIndex());
  core.waiters.advance(core.sm.lastIndex());
}

function stop(core: CatalogCore, err: HubError): void {
  if (core.stopped) return;
  core.stopped = err;
  for (const p of core.pending.values()) p.reject(err);
  core.pending.clear();
  core.unclaimed.clear();
  core.waiters.rejectAll(err);
  core.changes.rejectAll(err);
}

/** Follows the log until the catalog closes: applies entries, recovers from compaction and rewinds, retries. */
async function tailLoop(core: CatalogCore, applier: Applier): Promise<void> {
  const { abort, log, logger } = core;
  let rebuildCause: unknown;
  while (!abort.signal.aborted) {
    try {
      if (rebuildCause !== undefined) {
        await rebuildFromLog(core, rebuildCause);
        rebuildCause = undefined;
      }
      for await (const entry of log.tail(core.sm.lastIndex() + 1n, abort.signal)) applier.applyEntry(entry);
      if (!abort.signal.aborted) stop(core, new HubError('LOG_CLOSED', 'the log was closed under the catalog'));
      return;
    } catch (err) {
      if (abort.signal.aborted) return;
      if (isHubError(err, 'LOG_COMPACTED')) {
        try {
          await resetFromSnapshot(core, applier, err);
          continue;
        } catch (fatal) {
          stop(
            core,
            fatal instanceof HubError
              ? fatal
              : new HubError('INTERNAL', 'restoring the log snapshot failed', { cause: fatal }),
          );
          logger.error({ err: fatal }, 'catalog stopped: cannot follow the log');
          return;
        }
      }
      if (isHubError(err, 'LOG_CLOSED')) {
        stop(core, err);
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

type Reachability = ReturnType<typeof createReachability>;

/**
 * While the log is unreachable past its write timeout, `lost` is told the log's
 * error. One watch of the log serves every wait in flight: a watch per write
 * (its AbortController, its listeners and, when the write settled, an abort
 * building a DOMException) cost ~2 % of a write's CPU.
 */
function createReachability(log: Log, logger: pino.Logger) {
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

  return { whileReachable, stop: () => reachability?.abort() };
}

/** Appends one entry and resolves with its result once it is applied here. */
async function appendAndApply(core: CatalogCore, reach: Reachability, payload: string): Promise<ApplyResult> {
  core.inflight++;
  let index: bigint;
  try {
    [index] = (await core.log.append([payload])) as [bigint];
  } finally {
    core.inflight--;
  }
  const early = core.unclaimed.get(index);
  core.unclaimed.delete(index);
  if (core.inflight === 0) core.unclaimed.clear();
  if (early) return early;
  if (core.stopped) throw core.stopped;
  if (index <= core.sm.lastIndex()) {
    // Applied before we learnt the index and its result is gone, or the log lost
    // entries in a failover and handed this index out again (the hub rebuilds, and
    // the entry takes effect then): either way this hub cannot tell the outcome now.
    const applied = core.sm.lastIndex();
    throw new HubError(
      'LOG_OUTCOME_UNKNOWN',
      `entry ${index} is at or below what this hub has applied (${applied}); its outcome is unknown here`,
    );
  }
  let p: Pending | undefined;
  return reach.whileReachable(
    new Promise<ApplyResult>((resolve, reject) => {
      p = { resolve, reject };
      core.pending.set(index, p);
    }),
    () => core.pending.get(index) === p && core.pending.delete(index),
    `the write is in the log at index ${index} and takes effect, but this hub cannot apply it until the log is back`,
    'LOG_OUTCOME_UNKNOWN',
  );
}

/** Catalog writes that may end sessions (a node or check going): stamped with the time while sessions exist. */
const MAY_END_SESSIONS: ReadonlySet<string> = new Set([
  'register',
  'deregister',
  'check-update',
  'check-ttl-expire',
  'txn',
  'kv-txn',
]);

function withTime(core: CatalogCore, command: Command): Command {
  if (!MAY_END_SESSIONS.has(command.type) || commandNow(command) !== undefined) return command;
  if (core.sm.sessionCount() === 0) return command;
  return { ...command, now: (core.options.now ?? Date.now)() } as Command;
}

/** Catalog.submit: refusals and no-ops answered from the applied state, the rest appended and awaited. */
async function submit(core: CatalogCore, reach: Reachability, asked: Command): Promise<ApplyResult> {
  if (core.stopped) throw core.stopped;
  const command = withTime(core, asked);
  const payload = serialise(command);
  // The check runs on the payload's own parse, which nobody else holds: what the
  // log will carry (not the caller's object, which is never stored or changed),
  // checked without copying what it stores, and then applied as the entry.
  const shared = core.checkedParses.eligible(command, payload);
  const checked = shared ? parseCommand(payload) : command;
  // Refusals and no-ops are decided against the applied state and never
  // reach the log: a refused request must not grow it, move the index or
  // wake blocking queries. The verdict is confirmed after catching up with
  // everything the log already holds, so it is never based on a stale state.
  let verdict = core.sm.check(checked, shared);
  if (!verdict.changes) {
    const last = await core.log.lastIndex();
    const caughtUp = new AbortController();
    const caughtUpWait = core.waiters.wait(last - 1n, caughtUp.signal);
    await reach.whileReachable(caughtUpWait, () => caughtUp.abort(), 'nothing was written', 'LOG_UNAVAILABLE');
    verdict = core.sm.check(checked, shared);
    if (!verdict.changes) return verdict.result;
  }
  if (shared) core.checkedParses.keep(payload, checked);
  let result: ApplyResult;
  try {
    result = await appendAndApply(core, reach, payload);
  } finally {
    // Not applied here (refused, outcome unknown) or already taken: never applied later from here.
    if (shared) core.checkedParses.drop(payload, checked);
  }
  // Something appended concurrently (here or by another hub) won the race.
  if (!result.ok) core.options.onRefusedAtApply?.(command.type);
  return result;
}

/** Every CatalogReader method; one missing here fails the build. */
const READS: Record<keyof CatalogReader, true> = {
  lastIndex: true,
  nodes: true,
  node: true,
  nodeChecks: true,
  services: true,
  serviceInstances: true,
  serviceChecks: true,
  checksInState: true,
  configEntries: true,
  configEntry: true,
  serviceNames: true,
  ttlChecks: true,
  ttlCheckStates: true,
  ttlCheck: true,
  acl: true,
  connectCa: true,
  kvGet: true,
  kvList: true,
  kvKeys: true,
  session: true,
  sessions: true,
  nodeSessions: true,
  sessionStates: true,
  sessionState: true,
};

/** Reads always go to the current state machine (rebuildFromLog replaces it). */
function readerOver(core: CatalogCore): CatalogReader {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(READS) as (keyof CatalogReader)[]) {
    out[name] = (...args: unknown[]) => (core.sm[name] as (...a: unknown[]) => unknown)(...args);
  }
  return out as unknown as CatalogReader;
}

function catalogOver(core: CatalogCore, reach: Reachability, loop: Promise<void>): Catalog {
  const { waiters, changes } = core;
  return {
    ...readerOver(core),
    submit: (command) => submit(core, reach, command),
    waitForIndex: (after, signal) => waiters.wait(after, signal),
    waitForChange: (watch, signal) => (watch ? changes.wait(watch, signal) : waiters.wait(core.sm.lastIndex(), signal)),
    onApplied(listener) {
      core.appliedListeners.add(listener);
      return () => core.appliedListeners.delete(listener);
    },
    onReset(listener) {
      core.resetListeners.add(listener);
      return () => core.resetListeners.delete(listener);
    },
    snapshot: () => ({ index: core.sm.lastIndex(), state: core.sm.snapshot() }),
    fork: () => core.sm.fork(),
    async close() {
      if (core.abort.signal.aborted) return;
      core.abort.abort();
      reach.stop();
      stop(core, new HubError('SHUTTING_DOWN', 'the catalog is closing'));
      await loop;
      await core.compaction;
      core.appliedListeners.clear();
      core.resetListeners.clear();
    },
  };
}

export async function createCatalog(options: CatalogOptions): Promise<Catalog> {
  const core = newCore(options);
  const snap = await core.log.loadSnapshot();
  if (snap) core.sm.restore(snap.state);
  const applier = createApplier(core);
  const reach = createReachability(core.log, core.logger);
  const target = await core.log.lastIndex();
  const loop = tailLoop(core, applier);
  // Ready once the log as it was at open time is applied (replay), so reads are current.
  try {
    await core.waiters.wait(target - 1n);
  } catch (err) {
    core.abort.abort();
    await loop;
    throw err;
  }
  const catalog = catalogOver(core, reach, loop);
  // Index 1 stands for "the empty catalog": snapshots and blocking reads clamp 0
  // to 1, as Consul does. A fresh log spends index 1 on a no-op entry, so the
  // first real change gets index 2 and a reader holding index 1 is woken by it.
  // The origin entry changes nothing, so it bypasses submit's no-op rule.
  if (core.sm.lastIndex() === 0n) await appendAndApply(core, reach, serialise({ type: 'txn', ops: [] }));
  return catalog;
}
