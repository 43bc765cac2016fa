// Gives memory back to the OS after a burst of large writes (xDS initial syncs).
//
// When many Envoys connect at once, each is sent S clusters and S assignments;
// grpc-js and HTTP/2 copy and frame every one of those large responses per
// stream. glibc's malloc keeps the freed space inside its arenas: long-lived
// allocations made during the burst (streams, sessions) sit between the freed
// chunks, so the heap top cannot shrink, and free() never returns pages from
// the middle of an arena. Measured at 1,000 clients × 1,000 services, that was
// about 55 MiB of RSS that no live allocation used (heaptrack: live malloc within
// 2.3 MiB of a bare grpc-js server's; docs/xds-memory.md).
// `malloc_trim(0)` walks the arenas and releases every free page. It is glibc's,
// called through koffi (prebuilt FFI), and only exists on glibc Linux;
// elsewhere the trimmer is a no-op.
//
// A trim is armed once `minBytes` of large writes have been noted, and runs
// after `idleMs` without a new one (the burst is over) or `maxDelayMs` after it
// was armed (a burst that does not end still gets trimmed now and then).
import type { Logger } from 'pino';
import { Counter, Histogram, type Registry } from 'prom-client';

export interface MemoryTrimmer {
  /** A large buffer of `bytes` was written and freed (an initial sync response). */
  note(bytes: number): void;
  stats(): MemoryTrimStats;
  close(): void;
}

export interface MemoryTrimStats {
  /** False when malloc_trim is unavailable (not glibc) or trimming is switched off. */
  readonly available: boolean;
  readonly trims: number;
  /** Bytes noted since the last trim. */
  readonly pendingBytes: number;
  readonly lastDurationMs: number;
  /** RSS before minus RSS after, summed over all trims (never negative per trim). */
  readonly releasedBytes: number;
}

export interface MemoryTrimOptions {
  enabled: boolean;
  /** Noted bytes that arm a trim. */
  minBytes: number;
  /** Quiet time after the last note before the trim runs. */
  idleMs: number;
  /** The most an armed trim waits for quiet. */
  maxDelayMs: number;
  logger: Logger;
  registry?: Registry;
  /** The trim itself (tests inject one); defaults to glibc's malloc_trim(0) when available. */
  trim?: () => void;
  /** Resident set size in bytes (tests inject one). */
  rss?: () => number;
}

export const MEMORY_TRIM_DEFAULTS = { minBytes: 8 * 1024 * 1024, idleMs: 200, maxDelayMs: 10_000 } as const;

let cached: (() => void) | null | undefined;

/** glibc's malloc_trim(0), or undefined where there is none (musl, macOS, Windows, no koffi binary). */
export function loadMallocTrim(): (() => void) | undefined {
  if (cached !== undefined) return cached ?? undefined;
  cached = null;
  if (process.platform !== 'linux') return undefined;
  try {
    // Loaded only here, so a hub with trimming off never maps the FFI binary. musl has no libc.so.6, and no malloc_trim.
    const koffi = require('koffi') as { load(path: string): { func(definition: string): (pad: number) => number } };
    const fn = koffi.load('libc.so.6').func('int malloc_trim(size_t pad)');
    cached = () => void fn(0);
  } catch {
    cached = null;
  }
  return cached ?? undefined;
}

export function createMemoryTrimmer(options: MemoryTrimOptions): MemoryTrimmer {
  const trim = options.enabled ? (options.trim ?? loadMallocTrim()) : undefined;
  const rss = options.rss ?? (() => process.memoryUsage.rss());
  const logger = options.logger;
  const registers = options.registry ? [options.registry] : [];
  const trimsTotal = new Counter({
    name: 'xdshub_memory_trims_total',
    help: 'malloc_trim calls after bursts of large xDS writes',
    registers,
  });
  const released = new Counter({
    name: 'xdshub_memory_trim_released_bytes_total',
    help: 'Resident memory given back to the OS by malloc_trim (RSS before minus after)',
    registers,
  });
  const duration = new Histogram({
    name: 'xdshub_memory_trim_duration_seconds',
    help: 'How long one malloc_trim blocked the event loop',
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25],
    registers,
  });

  let pendingBytes = 0;
  let idleTimer: NodeJS.Timeout | undefined;
  let maxTimer: NodeJS.Timeout | undefined;
  let trims = 0;
  let lastDurationMs = 0;
  let releasedBytes = 0;
  let closed = false;

  function cancel(): void {
    clearTimeout(idleTimer);
    clearTimeout(maxTimer);
    idleTimer = maxTimer = undefined;
  }

  function run(): void {
    cancel();
    if (closed || !trim) return;
    pendingBytes = 0;
    const before = rss();
    const t = performance.now();
    trim();
    lastDurationMs = performance.now() - t;
    const freed = Math.max(0, before - rss());
    trims++;
    releasedBytes += freed;
    trimsTotal.inc();
    released.inc(freed);
    duration.observe(lastDurationMs / 1000);
    logger.debug({ releasedBytes: freed, ms: Number(lastDurationMs.toFixed(2)) }, 'malloc_trim after large writes');
  }

  /** Armed: run after idleMs of quiet (restarted by every note), or maxDelayMs after arming, whichever is first. */
  function schedule(): void {
    clearTimeout(idleTimer);
    idleTimer = setTimeout(run, options.idleMs);
    idleTimer.unref();
    if (!maxTimer) {
      maxTimer = setTimeout(run, options.maxDelayMs);
      maxTimer.unref();
    }
  }

  return {
    note(bytes) {
      if (!trim || closed) return;
      pendingBytes += bytes;
      if (pendingBytes >= options.minBytes) schedule();
    },
    stats: () => ({ available: trim !== undefined, trims, pendingBytes, lastDurationMs, releasedBytes }),
    close() {
      closed = true;
      cancel();
    },
  };
}
