// Group commit: every append() that arrives in one event-loop turn is queued and
// written by a single commit on the next setImmediate, so N concurrent writers cost
// one fsync instead of N. The store supplies `commit`, which writes a whole batch
// atomically and returns the first index it assigned.

export interface PendingAppend {
  readonly payloads: readonly string[];
  /** When append() was called (epoch ms): a store with a write timeout counts from here. */
  readonly at: number;
  resolve(indexes: bigint[]): void;
  reject(err: unknown): void;
}

export interface GroupCommitter {
  /** Queues payloads for the next commit. */
  submit(payloads: readonly string[]): Promise<bigint[]>;
  /** Commits whatever is queued now (used by close so accepted appends are not dropped). */
  flushNow(): Promise<void>;
}

/**
 * `commit` gets every payload of the batch in submission order and returns the index
 * of the first one; `since` is when the oldest of them was submitted, so a store that
 * bounds a write (Redis) counts the time it waited behind the commit before as well.
 */
/**
 * `maxBatch` caps the payloads of one commit (whole appends only; one larger append
 * still commits alone), so a burst cannot hold a store shared with other hubs for long.
 */
export function createGroupCommitter(
  commit: (payloads: readonly string[], since: number) => Promise<bigint> | bigint,
  maxBatch = Infinity,
): GroupCommitter {
  const queue: PendingAppend[] = [];
  let scheduled: NodeJS.Immediate | undefined;
  let running: Promise<void> = Promise.resolve();

  function takeBatch(): PendingAppend[] {
    let count = 0;
    let taken = 0;
    while (taken < queue.length && (taken === 0 || count + queue[taken]!.payloads.length <= maxBatch)) {
      count += queue[taken]!.payloads.length;
      taken++;
    }
    return queue.splice(0, taken);
  }

  async function flush(): Promise<void> {
    scheduled = undefined;
    const batch = takeBatch();
    if (queue.length > 0) scheduled = setImmediate(runFlush); // the rest goes in the next commit
    if (batch.length === 0) return;
    const all: string[] = [];
    for (const p of batch) for (const payload of p.payloads) all.push(payload);
    let next: bigint;
    try {
      next = await commit(all, batch[0]!.at);
    } catch (err) {
      for (const p of batch) p.reject(err);
      return;
    }
    for (const p of batch) {
      const indexes = p.payloads.map((_, i) => next + BigInt(i));
      next += BigInt(p.payloads.length);
      p.resolve(indexes);
    }
  }

  // Commits run one after another: a slow commit collects the next batch meanwhile.
  function runFlush(): Promise<void> {
    return (running = running.then(flush));
  }

  return {
    submit(payloads) {
      return new Promise<bigint[]>((resolve, reject) => {
        queue.push({ payloads, at: Date.now(), resolve, reject });
        scheduled ??= setImmediate(runFlush);
      });
    },
    async flushNow() {
      do {
        if (scheduled !== undefined) {
          clearImmediate(scheduled);
          scheduled = undefined;
        }
        await runFlush();
      } while (queue.length > 0);
    },
  };
}
