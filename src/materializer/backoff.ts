// Reconnect backoff, after Consul's submatview retry waiter: the first failure
// retries at once, then 200 ms doubling up to 60 s, each delay stretched by a
// random 0–100 % so that many views cut off together do not reconnect together.
// A successful update resets it.

export interface BackoffOptions {
  /** Delay of the second consecutive failure (default 200 ms). */
  baseMs?: number;
  /** Ceiling of any delay, jitter included (default 60 s). */
  maxMs?: number;
  /** Source of jitter in [0, 1) (tests pass a fixed one). */
  random?: () => number;
}

export interface Backoff {
  /** Counts a failure and returns how long to wait before the next attempt. */
  next(): number;
  /** Forgets past failures (after a successful update). */
  reset(): void;
  readonly failures: number;
}

export function createBackoff(options: BackoffOptions = {}): Backoff {
  const baseMs = options.baseMs ?? 200;
  const maxMs = options.maxMs ?? 60_000;
  const random = options.random ?? Math.random;
  let failures = 0;
  return {
    next() {
      failures++;
      if (failures === 1) return 0;
      // 2 ** 30 is far past any ceiling; stop doubling there so the number stays finite.
      const exp = Math.min(failures - 2, 30);
      const delay = Math.min(maxMs, baseMs * 2 ** exp);
      return Math.min(maxMs, Math.round(delay * (1 + random())));
    },
    reset() {
      failures = 0;
    },
    get failures() {
      return failures;
    },
  };
}

/**
 * Resolves after `ms`, or at once when `signal` aborts. The timer holds the
 * process open on purpose: a running materializer is live work; stop it to exit.
 */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
