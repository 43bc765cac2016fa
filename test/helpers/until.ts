// Waiting in tests: on a condition, never on a clock. `until` polls a condition
// and resolves with its first truthy value; its timeout only bounds a failing
// test (a hang guard, not a measure), so it is generous: the suite shares two
// cores with other work, and a passing test never waits for it. `letTimePass`
// is for the rare wait whose point is time itself (a TTL running out, a window
// in which nothing may happen); its name says so at the call site.
import { setTimeout as sleep } from 'node:timers/promises';

/** How long a condition may take before it counts as a hang, unless a call says otherwise. */
export const UNTIL_TIMEOUT_MS = 60_000;

export interface UntilOptions {
  /** What is awaited, for the failure message (a function: computed at failure time). */
  what: string | (() => string);
  /** Hang guard in ms (default UNTIL_TIMEOUT_MS). */
  timeout?: number;
  /** Poll period in ms (default 10). */
  interval?: number;
  /** Treat a throwing condition as not yet true (a server still starting); the last error is reported. */
  retryErrors?: boolean;
}

type Condition<T> = () => T | undefined | null | false | Promise<T | undefined | null | false>;

/** Polls `condition` until it returns a truthy value, and resolves with it; rejects after the timeout. */
export async function until<T>(condition: Condition<T>, options: UntilOptions | string): Promise<T> {
  const opts = typeof options === 'string' ? { what: options } : options;
  const timeout = opts.timeout ?? UNTIL_TIMEOUT_MS;
  const deadline = Date.now() + timeout;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await condition();
      if (value) return value;
    } catch (err) {
      if (!opts.retryErrors) throw err;
      lastError = err;
    }
    if (Date.now() > deadline) {
      const what = typeof opts.what === 'string' ? opts.what : opts.what();
      const cause = lastError ? ` (last error: ${String(lastError)})` : '';
      throw new Error(`timed out after ${timeout} ms waiting for ${what}${cause}`);
    }
    await sleep(opts.interval ?? 10);
  }
}

/**
 * Lets `ms` of wall time pass, on purpose: for a test whose subject is time
 * (a TTL expiring, nothing happening within a window). `why` documents the call.
 */
export async function letTimePass(ms: number, why: string): Promise<void> {
  void why;
  await sleep(ms);
}
