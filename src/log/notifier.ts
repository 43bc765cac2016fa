// Wakes tail readers when entries are appended, without polling. A version counter
// closes the gap between "read found nothing" and "start waiting": a reader notes
// the version before it reads and waits only if no append happened since.

export interface ChangeNotifier {
  /** Bumped on every append and on close. */
  readonly version: number;
  /** Resolves once `version` differs from `seen`, or when `signal` aborts. */
  waitAfter(seen: number, signal: AbortSignal): Promise<void>;
  notify(): void;
}

export function createChangeNotifier(): ChangeNotifier {
  let version = 0;
  const waiters = new Set<() => void>();
  return {
    get version() {
      return version;
    },
    waitAfter(seen, signal) {
      if (version !== seen || signal.aborted) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const done = () => {
          waiters.delete(done);
          signal.removeEventListener('abort', done);
          resolve();
        };
        waiters.add(done);
        signal.addEventListener('abort', done, { once: true });
      });
    },
    notify() {
      version++;
      // Copy first: each waiter removes itself while we iterate.
      for (const wake of [...waiters]) wake();
    },
  };
}
