// read() and tail() for the stores that live in this process (memory, sqlite):
// the argument checks and the compaction check in one place, the store supplies
// only how to fetch a range. A tail reads a page, yields it, and when caught up
// sleeps on the change notifier until the next append (no polling).
import { isHubError } from '../errors';
import { checkFrom, checkLimit, closedError, compactedError, effectiveFrom, PAGE_SIZE } from './common';
import type { Log, LogEntry } from './log';
import type { ChangeNotifier } from './notifier';

export interface LocalStore {
  /** Oldest retained index (see Log.firstIndex). */
  first(): bigint;
  isClosed(): boolean;
  /** Entries from `start` (never below first()), ascending, at most `limit` (undefined: all). */
  fetch(start: bigint, limit: number | undefined): LogEntry[];
  /** Bumped by every append and by close. */
  readonly changes: ChangeNotifier;
}

export function localReads(store: LocalStore): Pick<Log, 'read' | 'tail'> {
  function readNow(from: bigint, limit: number | undefined): LogEntry[] {
    checkFrom(from);
    checkLimit(limit);
    if (store.isClosed()) throw closedError();
    const start = effectiveFrom(from);
    const first = store.first();
    if (start < first) throw compactedError(start, first);
    return store.fetch(start, limit);
  }

  async function* tail(from: bigint, signal: AbortSignal): AsyncGenerator<LogEntry> {
    let next = effectiveFrom(from);
    while (!signal.aborted && !store.isClosed()) {
      const seen = store.changes.version;
      let page: LogEntry[];
      try {
        page = readNow(next, PAGE_SIZE);
      } catch (err) {
        // close() raced the read: the contract says a tail ends when the log closes.
        if (store.isClosed() && isHubError(err, 'LOG_CLOSED')) return;
        throw err;
      }
      // A compaction that overtakes a slow reader would otherwise show up as a silent gap.
      if (page.length > 0 && page[0]!.index !== next) throw compactedError(next, page[0]!.index);
      for (const entry of page) {
        if (signal.aborted) return;
        yield entry;
        next = entry.index + 1n;
      }
      if (page.length < PAGE_SIZE) await store.changes.waitAfter(seen, signal);
    }
  }

  return {
    async read(from, limit) {
      return readNow(from, limit);
    },
    tail(from, signal) {
      checkFrom(from);
      return tail(from, signal);
    },
  };
}
