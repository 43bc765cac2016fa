// tail() of the Redis log. Three sources, in this order of preference:
//  1. this process's own acknowledged appends (kept briefly in memory): when a tail
//     that has reached the head of the log needs exactly them next, it hands them out
//     without asking Redis, so an append acknowledged just before Redis went away is
//     still applied here;
//  2. pages read on the shared connection, to catch up (and to notice compaction);
//  3. XREAD BLOCK on the tail's own connection once caught up.
// An outage never ends the tail: it waits for the connection to come back (or for
// its own appends) and carries on from where it was. It ends when the signal aborts
// or the log closes.
import { compactedError, effectiveFrom, PAGE_SIZE } from './common';
import type { LogEntry } from './log';
import type { ChangeNotifier } from './notifier';
import { answeredWithin, LinkDown, type RedisLink } from './redis-link';

type StreamRecord = [id: string, fields: string[]];

/** Stream IDs are "<index>-1". */
export const idToIndex = (id: string): bigint => BigInt(id.slice(0, id.indexOf('-')));

export function toEntry([id, fields]: StreamRecord): LogEntry {
  const at = fields.indexOf('p');
  return Object.freeze({ index: idToIndex(id), payload: at >= 0 ? fields[at + 1]! : '' });
}

/** Longest a caught-up tail blocks in XREAD before it re-reads a page (which notices compaction). */
const TAIL_BLOCK_MS = 1_000;

/**
 * An XREAD not answered this long after it went out (its block plus room for a loaded
 * machine) is on a stalled connection: the tail drops that connection and reads a page
 * again once it is back. Without this, a reply lost on the way left the tail waiting
 * for good, and ioredis would have matched later replies to the wrong commands.
 */
const XREAD_ANSWER_MS = TAIL_BLOCK_MS + 4_000;

/**
 * Own appends kept for tails: a bounded window (entries and payload characters),
 * oldest dropped first; a tail that needs an entry no longer here reads Redis.
 */
export interface OwnEntries {
  add(first: bigint, payloads: readonly string[]): void;
  /** Own entries from `next` on, contiguous, at most `max`; [] when `next` is not one of them. */
  from(next: bigint, max: number): LogEntry[];
  /** Forgets everything (after a reconnect the log may no longer hold them: a failover). */
  clear(): void;
}

export function createOwnEntries(maxEntries: number, maxChars: number): OwnEntries {
  // Whole batches as appended (oldest first); entries are made only when a tail asks.
  const batches: { first: bigint; payloads: readonly string[]; chars: number }[] = [];
  let entries = 0;
  let chars = 0;
  return {
    add(first, payloads) {
      let size = 0;
      for (const p of payloads) size += p.length;
      batches.push({ first, payloads, chars: size });
      entries += payloads.length;
      chars += size;
      while (batches.length > 1 && (entries > maxEntries || chars > maxChars)) {
        const old = batches.shift()!;
        entries -= old.payloads.length;
        chars -= old.chars;
      }
    },
    clear() {
      batches.length = 0;
      entries = 0;
      chars = 0;
    },
    from(next, max) {
      const out: LogEntry[] = [];
      // Tails want the newest batches: search from the end.
      let i = batches.length - 1;
      while (i >= 0 && batches[i]!.first > next) i--;
      for (; i >= 0 && i < batches.length && out.length < max; i++) {
        const { first, payloads } = batches[i]!;
        const at = Number(next - first);
        if (at < 0 || at >= payloads.length) break; // not contiguous with what came before
        for (let k = at; k < payloads.length && out.length < max; k++) {
          out.push(Object.freeze({ index: next, payload: payloads[k]! }));
          next++;
        }
      }
      return out;
    },
  };
}

export interface TailSource {
  link: RedisLink;
  stream: string;
  own: OwnEntries;
  /** Woken by every own append and by close. */
  changes: ChangeNotifier;
  isClosed(): boolean;
  /**
   * A page from `start` (LOG_COMPACTED if `start` is gone; LOG_REWOUND if the log went
   * below `start - 1`, or no longer holds `prev` as it was); LinkDown when the connection is not up.
   */
  readPage(start: bigint, count: number, prev?: LogEntry): Promise<LogEntry[]>;
  /** A connection of the tail's own for blocking reads. */
  openBlockingLink(): RedisLink;
  /** Called with every entry the tail hands out. */
  handedOut(entry: LogEntry): void;
}

type XreadReply = [string, StreamRecord[]][] | null;

interface TailState {
  src: TailSource;
  signal: AbortSignal;
  next: bigint;
  caughtUp: boolean;
  // Own appends are handed out only once the tail has reached the head of the log in
  // Redis (and so knows `next` is retained): from then on it is contiguous, and an
  // own entry at `next` is exactly what Redis would return.
  live: boolean;
  // After an outage the log may have lost entries (a failover to a replica that had
  // not got them): the first read then checks that the last entry this tail handed
  // out is still there, as it was.
  verify: boolean;
  lastOut: LogEntry | undefined;
  // The shared connection's reconnects since the last check (the tail may have been
  // waiting on its own connection, or on nothing, while the server changed).
  generation: number;
  blocking: RedisLink | undefined;
  // An XREAD still blocked from an earlier round (own entries may have moved `next` meanwhile).
  pending: Promise<LogEntry[] | LinkDown> | undefined;
  // Own appends wake the round waiting for them through one subscription for the
  // whole tail. A waitAfter per round left its waiter (and a listener on `signal`)
  // behind whenever another hub's entries ended the round, until the next own
  // append: without bound on a hub that appends nothing itself, and each new
  // listener cost a walk over the others.
  wakeOwn: (() => void) | undefined;
}

/** A round that found nothing to hand out and should start again. */
const AGAIN = 'again';

export async function* redisTail(src: TailSource, from: bigint, signal: AbortSignal): AsyncGenerator<LogEntry> {
  const t: TailState = {
    src,
    signal,
    next: effectiveFrom(from),
    caughtUp: false,
    live: false,
    verify: false,
    lastOut: undefined,
    generation: src.link.generation(),
    blocking: undefined,
    pending: undefined,
    wakeOwn: undefined,
  };
  const offOwn = src.changes.subscribe(() => {
    const wake = t.wakeOwn;
    t.wakeOwn = undefined;
    wake?.();
  });
  const stop = () => {
    t.blocking?.close();
    t.wakeOwn?.();
  };
  signal.addEventListener('abort', stop, { once: true });
  try {
    yield* rounds(t);
  } finally {
    offOwn();
    signal.removeEventListener('abort', stop);
    t.blocking?.close();
  }
}

const ended = (t: TailState): boolean => t.signal.aborted || t.src.isClosed();

function ownAppend(t: TailState, seen: number): Promise<void> {
  return t.src.changes.version !== seen || t.signal.aborted
    ? Promise.resolve()
    : new Promise<void>((resolve) => (t.wakeOwn = resolve));
}

/** Each round hands out own appends, a page from Redis, or what a blocking XREAD brought. */
async function* rounds(t: TailState): AsyncGenerator<LogEntry> {
  const { src } = t;
  while (!ended(t)) {
    if (src.link.generation() !== t.generation) {
      t.generation = src.link.generation();
      t.caughtUp = false;
      t.verify = true;
    }
    const seen = src.changes.version;
    const own = t.live ? src.own.from(t.next, PAGE_SIZE) : [];
    if (own.length > 0) {
      if (!(yield* handOut(t, own))) return;
      continue;
    }

    if (!t.caughtUp) {
      const page = await readOnePage(t, seen);
      if (page === undefined) return;
      if (page === AGAIN) continue;
      if (!(yield* handOut(t, fresh(t, page)))) return;
      t.caughtUp = page.length < PAGE_SIZE;
      t.live ||= t.caughtUp;
      continue;
    }

    const woke = await blockForNewer(t, seen);
    if (woke === AGAIN) continue;
    if (!(yield* handOut(t, fresh(t, woke)))) return;
    // A timed-out block re-reads a page: it is how a compaction that emptied the range is noticed.
    if (woke.length === 0) t.caughtUp = false;
  }
}

/** Yields `entries` in order, recording each as handed out; false when the tail ended meanwhile. */
function* handOut(t: TailState, entries: Iterable<LogEntry>): Generator<LogEntry, boolean> {
  for (const entry of entries) {
    if (ended(t)) return false;
    yield entry;
    t.lastOut = entry;
    t.src.handedOut(entry);
    t.next = entry.index + 1n;
  }
  return true;
}

/** Entries of a read that started at or before `next`: drop what we have, the rest must start at `next`. */
function* fresh(t: TailState, entries: LogEntry[]): Generator<LogEntry> {
  for (const entry of entries) {
    if (entry.index < t.next) continue;
    // Another hub's compaction overtook this reader: say so instead of skipping.
    if (entry.index !== t.next) throw compactedError(t.next, entry.index);
    yield entry;
  }
}

/** A page on the shared connection; AGAIN after waiting out a drop, undefined when the tail ended. */
async function readOnePage(t: TailState, seen: number): Promise<LogEntry[] | typeof AGAIN | undefined> {
  try {
    const page = await t.src.readPage(t.next, PAGE_SIZE, t.verify ? t.lastOut : undefined);
    t.verify = false;
    return page;
  } catch (err) {
    if (ended(t)) return undefined;
    if (!(err instanceof LinkDown)) throw err;
    t.verify = true;
    // Down: wait for the connection, or for an own append acknowledged just before the drop.
    await Promise.race([t.src.link.whenReady(t.signal), ownAppend(t, seen)]);
    return AGAIN;
  }
}

/** Caught up: block for newer entries on this tail's own connection, never the shared one. */
async function blockForNewer(t: TailState, seen: number): Promise<LogEntry[] | typeof AGAIN> {
  t.blocking ??= t.src.openBlockingLink();
  const blocking = t.blocking;
  if (!t.pending) {
    if (blocking.state() !== 'ready') {
      await Promise.race([blocking.whenReady(t.signal), ownAppend(t, seen)]);
      return AGAIN;
    }
    // IDs are "<index>-1": entries after "<next-1>-1" start at index `next`. The block
    // is bounded so that an entry appended and compacted away between the page read
    // and this XREAD cannot leave the tail waiting for nothing.
    const after = `${t.next - 1n}-1`;
    const xread = blocking.run(
      (c) => c.xread('COUNT', PAGE_SIZE, 'BLOCK', TAIL_BLOCK_MS, 'STREAMS', t.src.stream, after) as Promise<XreadReply>,
    );
    t.pending = answeredWithin(blocking, 'xread', xread, XREAD_ANSWER_MS).then(
      (reply) => (reply?.[0]?.[1] ?? []).map(toEntry),
      (err: unknown) => {
        if (err instanceof LinkDown) return err;
        throw err;
      },
    );
    // Left behind when the tail ends mid-block; its failure then concerns no one.
    t.pending.catch(() => undefined);
  }
  const woke = await Promise.race([t.pending, ownAppend(t, seen).then(() => 'own' as const)]);
  if (woke === 'own') return AGAIN; // keep the XREAD: its answer is still useful
  t.pending = undefined;
  if (woke instanceof LinkDown) {
    t.caughtUp = false; // re-read a page once the connection is back
    t.verify = true;
    return AGAIN;
  }
  return woke;
}
