// Session TTLs, timed like TTL checks (ttl.ts): a timer per session with a TTL,
// started when this process saw it created or renewed, for SESSION_TTL_MULTIPLIER
// times its TTL (Consul's grace). When one fires it submits session-expire naming
// the renew index it timed, so an expiry that raced a renewal, or that another
// hub already applied, changes nothing.
import type pino from 'pino';
import { parseDurationMs } from '../config';
import { isHubError } from '../errors';
import type { Catalog } from './catalog';
import { SESSION_TTL_MULTIPLIER } from './kv-types';

export interface SessionTimers {
  pending(): number;
  stop(): void;
}

interface Armed {
  renewIndex: number;
  timer: NodeJS.Timeout;
}

export function startSessionTimers(catalog: Catalog, logger: pino.Logger, now: () => number = Date.now): SessionTimers {
  const armed = new Map<string, Armed>();

  function cancel(id: string): void {
    const a = armed.get(id);
    if (a) clearTimeout(a.timer);
    armed.delete(id);
  }

  function expire(id: string, renewIndex: number): void {
    armed.delete(id);
    if (catalog.sessionState(id)?.renewIndex !== renewIndex) return;
    catalog
      .submit({ type: 'session-expire', id, ifRenewIndex: renewIndex, now: now() })
      .then((r) => {
        if (!r.ok) logger.warn({ session: id, error: r.error }, 'session expiry refused');
      })
      .catch((err: unknown) => {
        if (!isHubError(err, 'SHUTTING_DOWN')) logger.warn({ err, session: id }, 'session expiry not submitted');
      });
  }

  function syncOne(id: string): void {
    const state = catalog.sessionState(id);
    if (!state || state.session.TTL === '') return cancel(id);
    if (armed.get(id)?.renewIndex === state.renewIndex) return;
    cancel(id);
    let ms: number;
    try {
      ms = parseDurationMs(state.session.TTL, 'TTL') * SESSION_TTL_MULTIPLIER;
    } catch (err) {
      logger.warn({ err, session: id }, 'session has an unparseable TTL; not timed');
      return;
    }
    // TTLs are at most 24 h (checked at create), within one setTimeout.
    const renewIndex = state.renewIndex;
    armed.set(id, { renewIndex, timer: setTimeout(() => expire(id, renewIndex), ms) });
  }

  function sync(ids: readonly string[] | 'all'): void {
    if (ids !== 'all') return ids.forEach(syncOne);
    const present = new Set<string>();
    for (const s of catalog.sessionStates()) {
      present.add(s.session.ID);
      syncOne(s.session.ID);
    }
    for (const id of [...armed.keys()]) if (!present.has(id)) cancel(id);
  }

  const offApplied = catalog.onApplied((_index, _events, info) => {
    if (info?.sessionsTouched) sync(info.sessionsTouched);
  });
  const offReset = catalog.onReset(() => sync('all'));
  sync('all');
  return {
    pending: () => armed.size,
    stop() {
      offApplied();
      offReset();
      for (const id of [...armed.keys()]) cancel(id);
    },
  };
}
