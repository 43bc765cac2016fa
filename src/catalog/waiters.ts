// Promises waiting for the applied index to pass a value, kept sorted so each
// applied entry wakes the satisfied ones without scanning the rest.
import { HubError } from '../errors';

interface Waiter {
  after: bigint;
  resolve(): void;
  reject(err: unknown): void;
}

export interface IndexWaiters {
  wait(after: bigint, signal?: AbortSignal): Promise<void>;
  /** Wakes every waiter whose `after` is below `index`. */
  advance(index: bigint): void;
  rejectAll(err: unknown): void;
}

export function createIndexWaiters(current: () => bigint, closedError: () => HubError | undefined): IndexWaiters {
  const waiters: Waiter[] = [];

  function remove(w: Waiter): void {
    const i = waiters.indexOf(w);
    if (i >= 0) waiters.splice(i, 1);
  }

  return {
    wait(after, signal) {
      if (current() > after) return Promise.resolve();
      const closed = closedError();
      if (closed) return Promise.reject(closed);
      if (signal?.aborted) return Promise.reject(signal.reason);
      return new Promise<void>((resolve, reject) => {
        const onAbort = () => {
          remove(w);
          reject(signal!.reason);
        };
        const w: Waiter = {
          after,
          resolve: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          },
          reject: (err) => {
            signal?.removeEventListener('abort', onAbort);
            reject(err);
          },
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        // Binary search for the insertion point keeps the array sorted by `after`.
        let lo = 0;
        let hi = waiters.length;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if (waiters[mid]!.after <= after) lo = mid + 1;
          else hi = mid;
        }
        waiters.splice(lo, 0, w);
      });
    },
    advance(index) {
      let n = 0;
      while (n < waiters.length && waiters[n]!.after < index) n++;
      if (n === 0) return;
      for (const w of waiters.splice(0, n)) w.resolve();
    },
    rejectAll(err) {
      for (const w of waiters.splice(0)) w.reject(err);
    },
  };
}
