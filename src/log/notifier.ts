// Wakes tail readers when entries are appended, without polling. A version counter
// closes the gap between "read found nothing" and "start waiting": a reader notes
// the version before it reads and waits only if no append happened since.

export interface ChangeNotifier {
  /** Bumped on every append and on close. */
  readonly version: number;
  /** Resolves once `version` differs from `seen`, or when `signal` aborts. */
  waitAfter(seen: number, signal: AbortSignal): Promise<void>;
  /**
   * Calls `listener` at every bump until the returned function is called: for a
   * reader that waits on something else too in each round, so that a round ended by
   * the other thing leaves no waiter behind (waitAfter's stays until the next bump).
   */
  subscribe(listener: () => void): () => void;
  notify(): void;
}

export function createChangeNotifier(): ChangeNotifier {
  let version = 0;
  const waiters = new Set<() => void>();
  const listeners = new Set<() => void>();
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
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    notify() {
      version++;
      // Copy first: each waiter removes itself while we iterate.
      for (const wake of [...waiters]) wake();
      for (const listener of listeners) listener();
    },
  };
}
