// Appends of the Redis log (see redis.ts): one group-commit batch per script call,
// numbered per writer so a batch resent after a reconnect is recognised instead of
// appended twice; a batch given up on with its outcome unknown is fenced before the
// next goes out; with --redis-wait-replicas, WAIT on the same connection before the
// acknowledgement. Also keeps the newest index this process has seen, so an append
// that lands below it (the log lost entries in a failover) is noticed.
import type pino from 'pino';
import { HubError, isHubError } from '../errors';
import { answerDeadline, LinkDown, type RedisLink } from './redis-link';

export interface AppenderDeps {
  link: RedisLink;
  label: string;
  writeTimeoutMs: number;
  waitReplicas: number;
  logger?: pino.Logger;
  /** LOG_UNAVAILABLE naming the log, with why: the write was not applied. */
  unavailable(why: string, cause?: unknown): HubError;
  /** LOG_OUTCOME_UNKNOWN naming the log, with why: the write may have been applied. */
  outcomeUnknown(why: string, cause?: unknown): HubError;
  /** Runs the append script for this writer's batch number: the first index, as text. */
  appendScript(batch: number, payloads: readonly string[]): Promise<string>;
  /** Runs the fence script for a batch given up on: the index it had landed at, or ''. */
  fenceScript(batch: number): Promise<string>;
  /** Called with every acknowledged batch. */
  landed(first: bigint, payloads: readonly string[]): void;
}

export interface Appender {
  /**
   * Appends one batch (the oldest of its appends made at `since`, epoch ms): its first
   * index once acknowledged; LOG_UNAVAILABLE (not applied), LOG_OUTCOME_UNKNOWN or
   * LOG_REWOUND otherwise, always by `since` + the write timeout.
   */
  commit(payloads: readonly string[], since?: number): Promise<bigint>;
  /** An index this process has seen (a tail handed it out). */
  saw(index: bigint): void;
  /** The log lost entries and now ends at `last`: later appends compare with this. */
  rewoundTo(last: bigint): void;
}

interface AppenderState {
  deps: AppenderDeps;
  seq: number;
  /** The newest index this process has seen (handed out by its tails or given to its appends). */
  highestSeen: bigint;
  /** A batch given up on while its outcome was unknown; fenced before the next batch goes out. */
  abandoned: number | undefined;
  fencing: Promise<void> | undefined;
}

export function createAppender(deps: AppenderDeps): Appender {
  const a: AppenderState = { deps, seq: 0, highestSeen: 0n, abandoned: undefined, fencing: undefined };
  deps.link.onReady(() => {
    if (a.abandoned !== undefined) void fence(a);
  });
  return {
    commit: (payloads, since) => commitBatch(a, payloads, since),
    saw(index) {
      if (index > a.highestSeen) a.highestSeen = index;
    },
    rewoundTo(last) {
      a.highestSeen = last;
    },
  };
}

/**
 * Fences the abandoned batch (if any) with the fence script. Bounded like a write: a
 * connection that does not answer within the write timeout is dropped (the fence is
 * harmless if it runs later, and is simply sent again on the next connection).
 */
function fence(a: AppenderState): Promise<void> {
  if (a.abandoned === undefined) return Promise.resolve();
  const { link, writeTimeoutMs, logger } = a.deps;
  a.fencing ??= (async () => {
    const batch = a.abandoned!;
    const { late, cancel } = answerDeadline(Date.now() + writeTimeoutMs, writeTimeoutMs);
    try {
      const first = await Promise.race([link.run(() => a.deps.fenceScript(batch)), late]);
      a.abandoned = undefined;
      if (first === '')
        logger?.info(
          { batch },
          'redis log: an append refused during the outage was not applied, and now never will be',
        );
      else
        logger?.warn(
          { batch, index: first },
          'redis log: an append refused during the outage had been applied before the connection dropped',
        );
    } catch (err) {
      // Down again, or silent (then dropped): the next ready (or the next append) fences it.
      if (err instanceof LinkDown) {
        if (link.state() === 'ready') link.drop(`fence: ${err.reason}`);
      } else logger?.error({ err, batch }, 'redis log: fencing an unresolved append failed');
    } finally {
      cancel();
      a.fencing = undefined;
    }
  })();
  return a.fencing;
}

/** Fences first; false when that did not finish by `deadline` (the batch must not go out before it). */
async function fencedBy(a: AppenderState, deadline: number): Promise<boolean> {
  if (a.abandoned === undefined) return true;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, deadline - Date.now()))));
  try {
    await Promise.race([fence(a), expired]);
  } finally {
    clearTimeout(timer);
  }
  return a.abandoned === undefined;
}

/** One send of a batch: its first index, or LinkDown when the connection fails or Redis does not answer by `deadline`. */
async function sendBatch(
  a: AppenderState,
  batch: number,
  payloads: readonly string[],
  deadline: number,
): Promise<bigint> {
  const { link, writeTimeoutMs, waitReplicas } = a.deps;
  const { late, cancel } = answerDeadline(deadline, writeTimeoutMs);
  try {
    const append = link.run(() => a.deps.appendScript(batch, payloads));
    const first = BigInt(await Promise.race([append, late]));
    if (waitReplicas > 0) {
      // On the same connection: WAIT counts the replicas that hold every write it made so far.
      // Redis answers WAIT at its timeout with the count so far: leave room to hear it before `late`.
      // The room is a quarter of the write timeout (100-500 ms): `late` is a timer, and after an
      // event-loop stall longer than the room the timer phase runs before the socket's answer is read.
      const room = Math.min(500, Math.max(100, writeTimeoutMs / 4));
      const waitMs = Math.max(1, deadline - Date.now() - room);
      const acked = await Promise.race([link.run((c) => c.wait(waitReplicas, waitMs)), late]);
      if (acked < waitReplicas) throw new NotReplicated(acked, waitReplicas, writeTimeoutMs);
    }
    return first;
  } finally {
    cancel();
  }
}

/** The append is in the primary's stream, but fewer replicas than --redis-wait-replicas confirmed it in time. */
class NotReplicated extends Error {
  constructor(
    readonly acked: number,
    waitReplicas: number,
    writeTimeoutMs: number,
  ) {
    super(`${acked} of ${waitReplicas} replicas confirmed it within ${writeTimeoutMs} ms`);
  }
}

/**
 * Commits one batch, answered by `since` + the write timeout whatever Redis does.
 * "Not applied" (LOG_UNAVAILABLE) only for a batch no attempt of which left this
 * process; once one may have reached Redis, LOG_OUTCOME_UNKNOWN and the batch is fenced.
 */
async function commitBatch(a: AppenderState, payloads: readonly string[], since = Date.now()): Promise<bigint> {
  const { link, label, writeTimeoutMs, unavailable, outcomeUnknown } = a.deps;
  const batch = ++a.seq;
  const deadline = since + writeTimeoutMs;
  // Whatever this batch lands at is above every index that existed before it was first
  // sent (tails may hand the batch itself out before its reply arrives).
  const seenBefore = a.highestSeen;
  let sent = false; // whether some attempt may have reached Redis
  const giveUp = (why: string, cause?: unknown): never => {
    if (!sent) throw unavailable(`${why}; the write was not applied`, cause);
    // Unknown outcome: make sure it cannot land later, and learn whether it did.
    a.abandoned = batch;
    throw outcomeUnknown(`${why}; the write may have been applied`, cause);
  };
  for (;;) {
    // Out of time before (again) sending: queued behind a commit that used it up (never
    // sent, so not applied), or a resend whose connection came back too late.
    if (Date.now() >= deadline) {
      giveUp(`no answer within ${writeTimeoutMs} ms${sent ? '' : ' (waiting behind earlier writes)'}`);
    }
    if (link.state() !== 'ready') {
      // During an outage a write that never went out is refused at once; one that
      // did, or one made while the first connection is still being set up, waits.
      if (link.state() === 'down' && !sent) giveUp('not connected');
      if (!(await link.whenReady(undefined, deadline))) giveUp(`no connection within ${writeTimeoutMs} ms`);
    }
    if (!(await fencedBy(a, deadline))) giveUp('an earlier write is still unresolved');
    try {
      return accepted(a, await sendBatch(a, batch, payloads, deadline), payloads, seenBefore);
    } catch (err) {
      if (isHubError(err)) throw err;
      if (err instanceof NotReplicated) {
        // Not fenced: it is in the stream, and every hub reading the primary applies it.
        throw outcomeUnknown(`the write reached the primary but ${err.message}; it may still take effect`, err);
      }
      if (!(err instanceof LinkDown)) {
        if (/STALE_BATCH/.test(String(err))) giveUp('the write was fenced after a reconnect', err);
        throw new HubError('INTERNAL', `${label}: append failed: ${String(err)}`, { cause: err });
      }
      sent ||= err.sent;
      if (!sent) giveUp('not connected');
      if (Date.now() >= deadline) {
        // Open but silent: drop the connection, so that nothing else queues behind the
        // unanswered command and no late reply is matched to a later command. The fence
        // on the next connection seals this batch's fate and learns it.
        if (link.state() === 'ready') link.drop(`append: ${err.reason}`);
        giveUp(err.reason, err);
      }
      // Lost with the connection: resend the same batch once it is back (idempotent).
    }
  }
}

/** Checks where an acknowledged batch landed and records it; its first index. */
function accepted(a: AppenderState, first: bigint, payloads: readonly string[], seenBefore: bigint): bigint {
  // Indexes only grow: one at or below what this process already saw means the
  // log lost entries (a failover) and hands their indexes out again. The entry is
  // in the log, but this hub must rebuild before it can apply it (its tail finds
  // the same and the catalog rebuilds).
  if (first <= seenBefore) {
    a.highestSeen = first + BigInt(payloads.length) - 1n; // the log as it is now
    throw new HubError(
      'LOG_REWOUND',
      `${a.deps.label}: the write landed at index ${first}, but this hub had seen ${seenBefore}: ` +
        'the log lost entries in a failover; the write will take effect',
    );
  }
  const lastOfBatch = first + BigInt(payloads.length) - 1n;
  if (lastOfBatch > a.highestSeen) a.highestSeen = lastOfBatch;
  a.deps.landed(first, payloads);
  return first;
}
