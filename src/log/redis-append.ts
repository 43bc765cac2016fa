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
  /** LOG_UNAVAILABLE naming the log, with why. */
  unavailable(why: string, cause?: unknown): HubError;
  /** Runs the append script for this writer's batch number: the first index, as text. */
  appendScript(batch: number, payloads: readonly string[]): Promise<string>;
  /** Runs the fence script for a batch given up on: the index it had landed at, or ''. */
  fenceScript(batch: number): Promise<string>;
  /** Called with every acknowledged batch. */
  landed(first: bigint, payloads: readonly string[]): void;
}

export interface Appender {
  /** Appends one batch: its first index once acknowledged; LOG_UNAVAILABLE or LOG_REWOUND otherwise. */
  commit(payloads: readonly string[]): Promise<bigint>;
  /** An index this process has seen (a tail handed it out). */
  saw(index: bigint): void;
  /** The log lost entries and now ends at `last`: later appends compare with this. */
  rewoundTo(last: bigint): void;
}

export function createAppender(deps: AppenderDeps): Appender {
  const { link, label, writeTimeoutMs, waitReplicas, logger, unavailable } = deps;
  let seq = 0;
  /** The newest index this process has seen (handed out by its tails or given to its appends). */
  let highestSeen = 0n;
  /** A batch given up on while its outcome was unknown; fenced before the next batch goes out. */
  let abandoned: number | undefined;
  let fencing: Promise<void> | undefined;

  function fence(): Promise<void> {
    if (abandoned === undefined) return Promise.resolve();
    fencing ??= (async () => {
      const batch = abandoned!;
      try {
        const first = await link.run(() => deps.fenceScript(batch));
        abandoned = undefined;
        if (first === '') logger?.info({ batch }, 'redis log: an append refused during the outage was not applied, and now never will be');
        else logger?.warn({ batch, index: first }, 'redis log: an append refused during the outage had been applied before the connection dropped');
      } catch (err) {
        // Down again: the next ready (or the next append) fences it.
        if (!(err instanceof LinkDown)) logger?.error({ err, batch }, 'redis log: fencing an unresolved append failed');
      } finally {
        fencing = undefined;
      }
    })();
    return fencing;
  }
  link.onReady(() => {
    if (abandoned !== undefined) void fence();
  });

  /** One send of a batch: its first index, or LinkDown when the connection fails or Redis does not answer by `deadline`. */
  async function sendBatch(batch: number, payloads: readonly string[], deadline: number): Promise<bigint> {
    const { late, cancel } = answerDeadline(deadline, writeTimeoutMs);
    try {
      const append = link.run(() => deps.appendScript(batch, payloads));
      const first = BigInt(await Promise.race([append, late]));
      if (waitReplicas > 0) {
        // On the same connection: WAIT counts the replicas that hold every write it made so far.
        // Redis answers WAIT at its timeout with the count so far: leave room to hear it before `late`.
        const waitMs = Math.max(1, deadline - Date.now() - 100);
        const acked = await Promise.race([link.run((c) => c.wait(waitReplicas, waitMs)), late]);
        if (acked < waitReplicas) throw new NotReplicated(acked);
      }
      return first;
    } finally {
      cancel();
    }
  }

  /** The append is in the primary's stream, but fewer replicas than --redis-wait-replicas confirmed it in time. */
  class NotReplicated extends Error {
    constructor(readonly acked: number) {
      super(`${acked} of ${waitReplicas} replicas confirmed it within ${writeTimeoutMs} ms`);
    }
  }

  async function commitBatch(payloads: readonly string[]): Promise<bigint> {
    const batch = ++seq;
    const deadline = Date.now() + writeTimeoutMs;
    // Whatever this batch lands at is above every index that existed before it was first
    // sent (tails may hand the batch itself out before its reply arrives).
    const seenBefore = highestSeen;
    let sent = false; // whether some attempt may have reached Redis
    const giveUp = (why: string, cause?: unknown): never => {
      // Unknown outcome: make sure it cannot land later, and learn whether it did.
      if (sent) abandoned = batch;
      throw unavailable(sent ? `${why}; the write may have been applied` : `${why}; the write was not applied`, cause);
    };
    for (;;) {
      if (link.state() !== 'ready') {
        // During an outage a write that never went out is refused at once; one that
        // did, or one made while the first connection is still being set up, waits.
        if (link.state() === 'down' && !sent) giveUp('not connected');
        if (!(await link.whenReady(undefined, deadline))) giveUp(`no connection within ${writeTimeoutMs} ms`);
      }
      await fence();
      if (abandoned !== undefined) giveUp('an earlier write is still unresolved');
      try {
        const first = await sendBatch(batch, payloads, deadline);
        // Indexes only grow: one at or below what this process already saw means the
        // log lost entries (a failover) and hands their indexes out again. The entry is
        // in the log, but this hub must rebuild before it can apply it (its tail finds
        // the same and the catalog rebuilds).
        if (first <= seenBefore) {
          const had = seenBefore;
          highestSeen = first + BigInt(payloads.length) - 1n; // the log as it is now
          throw new HubError('LOG_REWOUND', `${label}: the write landed at index ${first}, but this hub had seen ${had}: the log lost entries in a failover; the write will take effect`);
        }
        const lastOfBatch = first + BigInt(payloads.length) - 1n;
        if (lastOfBatch > highestSeen) highestSeen = lastOfBatch;
        deps.landed(first, payloads);
        return first;
      } catch (err) {
        if (isHubError(err, 'LOG_REWOUND')) throw err;
        if (err instanceof NotReplicated) {
          // Not fenced: it is in the stream, and every hub reading the primary applies it.
          throw unavailable(`the write reached the primary but ${err.message}; it may still take effect`, err);
        }
        if (!(err instanceof LinkDown)) {
          if (/STALE_BATCH/.test(String(err))) giveUp('the write was fenced after a reconnect', err);
          throw new HubError('INTERNAL', `${label}: append failed: ${String(err)}`, { cause: err });
        }
        sent ||= err.sent;
        if (!sent) giveUp('not connected');
        // A live connection that has not answered in time keeps its order: the fence sent
        // on it next runs after the append, and so seals (and learns) its fate.
        if (Date.now() >= deadline) giveUp(err.reason, err);
        // Lost with the connection: resend the same batch once it is back (idempotent).
      }
    }
  }

  return {
    commit: commitBatch,
    saw(index) {
      if (index > highestSeen) highestSeen = index;
    },
    rewoundTo(last) {
      highestSeen = last;
    },
  };
}
