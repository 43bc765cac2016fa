// The TTL scheduler: a timer per check with a TTL, started when this process
// last saw the check registered or refreshed (at start: from start time). When
// one fires it submits check-ttl-expire naming the refresh index it timed, so an
// expiry that raced a refresh, or that another hub process already applied,
// changes nothing. Every hub process runs one; apply dedups their expiries.
// Sessions with a TTL are timed the same way (session-timers.ts).
import type pino from 'pino';
import { parseDurationMs } from '../config';
import { isHubError } from '../errors';
import type { Catalog, CheckRef, TtlCheckState } from './catalog';
import { startSessionTimers } from './session-timers';
import { key2 } from './values';

export interface TtlSchedulerOptions {
  catalog: Catalog;
  logger: pino.Logger;
  /** This hub's node name, for log context only: every TTL check in the catalog is timed, whatever its node. */
  nodeName?: string;
}

export interface TtlScheduler {
  /** Checks with a pending expiry timer (for tests and debug endpoints). */
  pending(): number;
  stop(): void;
}

/** setTimeout's limit; longer TTLs are timed in hops. */
const MAX_TIMER_MS = 2_147_483_647;

interface Armed {
  refreshIndex: number;
  /** Undefined once fired: the check waits for its next refresh. */
  timer: NodeJS.Timeout | undefined;
}

/** Consul's wording (agent/checks CheckTTL). */
export function expiredOutput(lastOutput: string): string {
  return lastOutput === '' ? 'TTL expired' : `TTL expired (last output before timeout follows): ${lastOutput}`;
}

/** TTL checks and sessions with a TTL, each timed from the log (session-timers.ts for sessions). */
export function startTtlScheduler(options: TtlSchedulerOptions): TtlScheduler {
  const checks = startCheckTtls(options);
  const sessions = startSessionTimers(options.catalog, options.logger.child({ node: options.nodeName }));
  return {
    pending: checks.pending,
    stop() {
      checks.stop();
      sessions.stop();
    },
  };
}

/** One check-TTL scheduler's state; the functions below take it. */
interface CheckTtls {
  catalog: Catalog;
  logger: pino.Logger;
  armed: Map<string, Armed>;
  stopped: boolean;
}

function startCheckTtls(options: TtlSchedulerOptions): TtlScheduler {
  const t: CheckTtls = {
    catalog: options.catalog,
    logger: options.logger.child({ node: options.nodeName }),
    armed: new Map<string, Armed>(),
    stopped: false,
  };
  const offApplied = t.catalog.onApplied((_index, _events, info) => {
    if (t.stopped) return;
    for (const ref of info?.ttlTouched ?? []) sync(t, ref);
  });
  const offReset = t.catalog.onReset(() => {
    if (!t.stopped) syncAll(t);
  });
  syncAll(t);

  return {
    pending: () => [...t.armed.values()].filter((a) => a.timer !== undefined).length,
    stop() {
      if (t.stopped) return;
      t.stopped = true;
      offApplied();
      offReset();
      for (const key of [...t.armed.keys()]) cancel(t, key);
    },
  };
}

function cancel(t: CheckTtls, key: string): void {
  const a = t.armed.get(key);
  if (a?.timer) clearTimeout(a.timer);
  t.armed.delete(key);
}

function schedule(a: Armed, ms: number, fire: () => void): void {
  const hop = Math.min(ms, MAX_TIMER_MS);
  // Not unref'd: a running scheduler is part of the process's work until stop().
  a.timer = setTimeout(() => (ms > hop ? schedule(a, ms - hop, fire) : fire()), hop);
}

function arm(t: CheckTtls, state: TtlCheckState): void {
  const { Node: node, CheckID: checkId } = state.check;
  const key = key2(node, checkId);
  cancel(t, key);
  let ms: number;
  try {
    ms = parseDurationMs(String(state.check.Definition.TTL), 'Definition.TTL');
  } catch (err) {
    t.logger.warn({ err, checkNode: node, checkId }, 'TTL check has an unparseable TTL; not timed');
    return;
  }
  const a: Armed = { refreshIndex: state.refreshIndex, timer: undefined };
  t.armed.set(key, a);
  // Already expired for this refresh (seen at start or after a reset): nothing to time until the next refresh.
  if (state.expired) return;
  schedule(a, ms, () => {
    a.timer = undefined;
    expire(t, node, checkId, a.refreshIndex);
  });
}

function expire(t: CheckTtls, node: string, checkId: string, refreshIndex: number): void {
  const { catalog, logger } = t;
  const current = catalog.ttlCheck(node, checkId);
  // Only the refresh index is compared, not `expired`: another process's expiry may be in flight
  // or applied; apply dedups, and a duplicate per process is cheap.
  if (!current || current.refreshIndex !== refreshIndex) return;
  catalog
    .submit({
      type: 'check-ttl-expire',
      node,
      checkId,
      ifModifyIndex: refreshIndex,
      output: expiredOutput(current.check.Output),
    })
    .then((r) => {
      if (!r.ok) logger.warn({ checkNode: node, checkId, error: r.error }, 'TTL expiry refused');
    })
    .catch((err: unknown) => {
      if (!isHubError(err, 'SHUTTING_DOWN')) logger.warn({ err, checkNode: node, checkId }, 'TTL expiry not submitted');
    });
}

/** Brings one check's timer in line with the catalog: re-arm on a new refresh, cancel when gone. */
function sync(t: CheckTtls, { node, checkId }: CheckRef): void {
  const key = key2(node, checkId);
  const state = t.catalog.ttlCheck(node, checkId);
  const ttl = state?.check.Definition?.TTL;
  if (!state || typeof ttl !== 'string' || ttl === '') {
    cancel(t, key);
    return;
  }
  if (t.armed.get(key)?.refreshIndex === state.refreshIndex) return; // changed, but not refreshed
  arm(t, state);
}

function syncAll(t: CheckTtls): void {
  const present = new Set<string>();
  for (const state of t.catalog.ttlCheckStates()) {
    present.add(key2(state.check.Node, state.check.CheckID));
    sync(t, { node: state.check.Node, checkId: state.check.CheckID });
  }
  for (const key of [...t.armed.keys()]) if (!present.has(key)) cancel(t, key);
}
