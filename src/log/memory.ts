// The in-memory log: for tests and for a single process that accepts losing
// everything on exit. Same contract as the durable stores, "durable" meaning
// "in this process's memory".
import { checkCompaction, checkPayloads, closedError, compactionCut } from './common';
import { localReads } from './local-reads';
import type { Log, LogEntry, LogSnapshot } from './log';
import { createChangeNotifier } from './notifier';

export function createMemoryLog(): Log {
  // entries[i] has index first + i; indexes are dense, so lookups are arithmetic.
  let entries: LogEntry[] = [];
  let first = 1n;
  let snapshot: LogSnapshot | undefined;
  let closed = false;
  const changes = createChangeNotifier();

  const last = () => first + BigInt(entries.length) - 1n;

  const log: Log = {
    kind: 'memory',
    ...localReads({
      first: () => first,
      isClosed: () => closed,
      changes,
      fetch(start, limit) {
        const offset = Number(start - first);
        return entries.slice(offset, limit === undefined ? undefined : offset + limit);
      },
    }),

    async append(payloads) {
      checkPayloads(payloads);
      if (closed) throw closedError();
      if (payloads.length === 0) return [];
      // Assigned synchronously, so concurrent callers get contiguous, disjoint blocks.
      const indexes: bigint[] = [];
      for (const payload of payloads) {
        const index = last() + 1n;
        entries.push(Object.freeze({ index, payload }));
        indexes.push(index);
      }
      changes.notify();
      return indexes;
    },

    async lastIndex() {
      return last();
    },

    async firstIndex() {
      return first;
    },

    available: () => !closed,

    async loadSnapshot() {
      return snapshot;
    },

    async compact(next, keepTail) {
      if (closed) throw closedError();
      checkCompaction(next, keepTail, last(), snapshot);
      snapshot = Object.freeze({ index: next.index, state: next.state });
      const cut = compactionCut(next, keepTail);
      if (cut > first) {
        entries = entries.slice(Number(cut - first));
        first = cut;
      }
    },

    async close() {
      if (closed) return;
      closed = true;
      changes.notify(); // wakes every tail so it sees `closed` and ends
    },
  };
  return log;
}
