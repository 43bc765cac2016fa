// Folds a burst into one delivery. Items that have already arrived (the next one
// settles within a few microtasks) are taken together, and consecutive `events`
// items become one, so a burst of single-event log entries costs the view one
// new version instead of one per entry. Merging is safe in every framing phase:
// a snapshot buffers events anyway, and a live delivery at the last item's
// index holds every earlier change. Readers never see the skipped indexes,
// only the state at the index they are given.
import type { StreamItem } from '../subscribe/types';

/** Microtask turns to wait for an item that is already on its way (in-process generators need a few). */
const READY_TURNS = 8;
/** Bounds one delivery, so a long burst still shows progress to readers. */
const MAX_EVENTS = 10_000;

type Next = IteratorResult<StreamItem>;

/** The settled value of `p` if it settles within a few microtask turns; rethrows its error. */
async function settledSoon(p: Promise<Next>): Promise<Next | undefined> {
  let value: Next | undefined;
  let failure: { err: unknown } | undefined;
  p.then(
    (v) => (value = v),
    (err: unknown) => (failure = { err }),
  );
  for (let i = 0; i < READY_TURNS && value === undefined && failure === undefined; i++) await null;
  if (failure) throw failure.err;
  return value;
}

/**
 * Deliveries from `items`: each is one item, or several consecutive `events`
 * items merged. If the source fails after a burst began, the burst is
 * delivered first and the error is thrown on the next pull.
 */
export async function* coalesce(items: AsyncIterable<StreamItem>): AsyncGenerator<StreamItem> {
  const it = items[Symbol.asyncIterator]();
  // A pull left pending when the consumer stops may still fail as the source
  // shuts down; it is awaited when it matters, and must not be "unhandled" when not.
  const pull = (): Promise<Next> => {
    const p = it.next();
    p.catch(() => undefined);
    return p;
  };
  let next: Promise<Next> = pull();
  try {
    for (;;) {
      const first = await next;
      if (first.done) return;
      next = pull();
      if (first.value.kind !== 'events') {
        yield first.value;
        continue;
      }
      const events = [...first.value.events];
      let index = first.value.index;
      let held: StreamItem | undefined;
      let failed: { err: unknown } | undefined;
      while (events.length < MAX_EVENTS) {
        let r: Next | undefined;
        try {
          r = await settledSoon(next);
        } catch (err) {
          failed = { err };
          break;
        }
        if (r === undefined || r.done) break; // not there yet, or the end: `next` still holds it
        next = pull();
        if (r.value.kind !== 'events') {
          held = r.value;
          break;
        }
        for (const e of r.value.events) events.push(e);
        index = r.value.index;
      }
      yield { kind: 'events', index, events };
      if (held) yield held;
      if (failed) throw failed.err;
    }
  } finally {
    // Not awaited: a pull may still be pending (a source waiting for its next
    // item), and return() queues behind it. The caller aborts the subscription's
    // signal right after, which ends that pull; its outcome no longer matters.
    it.return?.().catch(() => undefined);
  }
}
