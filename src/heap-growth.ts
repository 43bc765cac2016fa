// `--gc-heap-growth` (docs/operations.md, "CPU and the heap's growth"): how far
// V8's old generation may grow past what the last full GC left live before the
// next full GC starts. V8 picks that factor itself from how much of the main
// thread its collections take (1.1 to 4); most of a full GC's marking runs on
// helper threads, which that choice does not count, and a hub with many
// services and streams has a large live heap, so V8 settles near 1.2 and marks
// the whole heap every few megabytes promoted. A fixed factor of 2 (100%) makes
// full GCs about five times rarer while the hub pushes changes.
//
// Not during a burst of initial syncs (many Envoys connecting): then the old
// generation fills with the small objects that hold the large response buffers,
// and those buffers (outside the heap, in malloc's arenas) are freed only when a
// full GC collects their holders; a larger factor would keep them longer and
// leave RSS higher after the burst. So the factor goes back to V8's own choice
// at the first large write and returns `idleMs` after the last one.
//
// Process-wide, as V8's flag is: `xdshub serve` starts the one controller
// (startHeapGrowth) and the xDS server tells it of every large write
// (noteLargeWrite); createHub alone starts none, so tests that share a process
// keep V8's own choice.
import { setFlagsFromString } from 'node:v8';
import { MEMORY_TRIM_DEFAULTS } from './memory-trim';

export const DEFAULT_HEAP_GROWTH = 100;
/** V8's own largest factor is 4: 300%. */
export const MAX_HEAP_GROWTH = 300;

/** V8's old-generation growing factor becomes 1 + percent / 100; 0 gives the choice back to V8. */
export function applyHeapGrowth(percent: number): void {
  setFlagsFromString(`--heap-growing-percent=${percent}`);
}

export interface HeapGrowth {
  /** A large (initial sync) response was written: V8's own factor until the burst is over. */
  noteLarge(): void;
  /** The factor in force now (0 = V8's own choice). */
  current(): number;
  close(): void;
}

export interface HeapGrowthOptions {
  /** The factor outside bursts, in percent (--gc-heap-growth); 0 = V8's own choice always. */
  percent: number;
  /** Quiet time after the last large write that ends a burst (serve: the memory trim's). */
  idleMs: number;
  /** Tests observe the switches instead of setting V8's flag. */
  apply?: (percent: number) => void;
}

let active: HeapGrowth | undefined;

/** `serve`: this process's controller at `percent` (replacing any earlier one). */
export function startHeapGrowth(percent: number, apply?: (percent: number) => void): HeapGrowth {
  active?.close();
  // A burst ends as the memory trim's does: after its quiet time without a large write.
  active = createHeapGrowth({ percent, idleMs: MEMORY_TRIM_DEFAULTS.idleMs, ...(apply ? { apply } : {}) });
  return active;
}

/** The xDS server wrote a large response (an initial sync): the process's controller, if started, hears of it. */
export function noteLargeWrite(): void {
  active?.noteLarge();
}

/** Stops the process's controller (tests), leaving the factor where it is. */
export function stopHeapGrowth(): void {
  active?.close();
  active = undefined;
}

export function createHeapGrowth(options: HeapGrowthOptions): HeapGrowth {
  const { percent, idleMs } = options;
  const apply = options.apply ?? applyHeapGrowth;
  let current = percent;
  let lastLarge = 0;
  let timer: NodeJS.Timeout | undefined;
  const set = (p: number) => {
    if (p === current) return;
    current = p;
    apply(p);
  };
  // 0: V8 decides throughout, and its flag is left as it is.
  if (percent > 0) apply(percent);
  // One timer per burst, re-armed for the rest of the quiet time when large writes came meanwhile.
  const check = () => {
    const quiet = performance.now() - lastLarge;
    if (quiet < idleMs) {
      timer = setTimeout(check, idleMs - quiet);
      timer.unref();
      return;
    }
    timer = undefined;
    set(percent);
  };
  return {
    noteLarge() {
      if (percent === 0) return;
      lastLarge = performance.now();
      set(0);
      if (!timer) {
        timer = setTimeout(check, idleMs);
        timer.unref();
      }
    },
    current: () => current,
    close() {
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}
