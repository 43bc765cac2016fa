// tail() for stores that live in this process (memory, sqlite): read a page, yield
// it, and when caught up sleep on the change notifier until the next append.
import { isHubError } from '../errors';
import { compactedError } from './common';
import type { LogEntry } from './log';
import type { ChangeNotifier } from './notifier';

export interface PagedSource {
  /** Entries >= from, ascending, at most limit; throws LOG_COMPACTED like Log.read. */
  read(from: bigint, limit: number): Promise<LogEntry[]>;
  readonly changes: ChangeNotifier;
  isClosed(): boolean;
}

export async function* pagedTail(
  source: PagedSource,
  from: bigint,
  signal: AbortSignal,
  pageSize: number,
): AsyncGenerator<LogEntry> {
  let next = from < 1n ? 1n : from;
  while (!signal.aborted && !source.isClosed()) {
    const seen = source.changes.version;
    let page: LogEntry[];
    try {
      page = await source.read(next, pageSize);
    } catch (err) {
      // close() raced the read: the contract says a tail ends when the log closes.
      if (source.isClosed() && isHubError(err, 'LOG_CLOSED')) return;
      throw err;
    }
    // A compaction that overtakes a slow reader would otherwise show up as a silent gap.
    if (page.length > 0 && page[0]!.index !== next) throw compactedError(next, page[0]!.index);
    for (const entry of page) {
      if (signal.aborted) return;
      yield entry;
      next = entry.index + 1n;
    }
    if (page.length < pageSize) await source.changes.waitAfter(seen, signal);
  }
}
