// The trimmer after bursts of large writes: when it arms, when it runs, what
// it reports; and that glibc's malloc_trim, loaded through koffi, really gives
// freed heap pages back on this machine.
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import pino from 'pino';
import { Registry } from 'prom-client';
import {
  createMemoryTrimmer,
  loadMallocTrim,
  MEMORY_TRIM_DEFAULTS,
  type MemoryTrimOptions,
} from '../../src/memory-trim';

const silent = pino({ level: 'silent' });

/** Mocks setTimeout for the test; returns how to move time. */
function clock(t: TestContext): (ms: number) => void {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  return (ms) => t.mock.timers.tick(ms);
}

/** A trimmer whose trim is fake and gives back 30 MiB each time. */
function trimmer(over: Partial<MemoryTrimOptions> = {}) {
  let rss = 100 << 20;
  const calls: number[] = [];
  const registry = new Registry();
  const trim = createMemoryTrimmer({
    enabled: true,
    minBytes: 1000,
    idleMs: 200,
    maxDelayMs: 1000,
    logger: silent,
    registry,
    trim: () => {
      calls.push(rss);
      rss -= 30 << 20;
    },
    rss: () => rss,
    ...over,
  });
  return { trim, calls, registry };
}

test('no trim until minBytes of large writes were noted', (t) => {
  const tick = clock(t);
  const { trim, calls } = trimmer();
  trim.note(600);
  tick(5_000);
  assert.equal(calls.length, 0);
  assert.equal(trim.stats().pendingBytes, 600);
  trim.note(400);
  tick(200);
  assert.equal(calls.length, 1);
  assert.equal(trim.stats().pendingBytes, 0, 'a trim starts the count again');
});

test('the trim waits for idleMs of quiet after the last large write', (t) => {
  const tick = clock(t);
  const { trim, calls } = trimmer();
  trim.note(1000);
  tick(150);
  trim.note(10); // the burst goes on: wait again
  tick(150);
  assert.equal(calls.length, 0);
  tick(50);
  assert.equal(calls.length, 1);
  tick(10_000);
  assert.equal(calls.length, 1, 'one trim per burst');
});

test('a burst that never goes quiet is still trimmed every maxDelayMs', (t) => {
  const tick = clock(t);
  const { trim, calls } = trimmer();
  for (let ms = 0; ms < 2_500; ms += 100) {
    trim.note(1000);
    tick(100);
  }
  assert.equal(calls.length, 2, `2.5 s of non-stop writes with maxDelayMs 1000: ${calls.length} trims`);
});

test('stats and metrics report trims and the RSS they gave back', async (t) => {
  const tick = clock(t);
  const { trim, registry } = trimmer();
  trim.note(5000);
  tick(200);
  const s = trim.stats();
  assert.equal(s.available, true);
  assert.equal(s.trims, 1);
  assert.equal(s.releasedBytes, 30 << 20);
  const text = await registry.metrics();
  assert.match(text, /^xdshub_memory_trims_total 1$/m);
  assert.match(text, new RegExp(`^xdshub_memory_trim_released_bytes_total ${30 << 20}$`, 'm'));
  assert.match(text, /^xdshub_memory_trim_duration_seconds_count 1$/m);
});

test('switched off (--memory-trim=false), or closed, it never trims', (t) => {
  const tick = clock(t);
  const off = trimmer({ enabled: false });
  off.trim.note(1 << 30);
  tick(60_000);
  assert.equal(off.calls.length, 0);
  assert.equal(off.trim.stats().available, false);
  assert.equal(off.trim.stats().pendingBytes, 0);

  const closed = trimmer();
  closed.trim.note(5000);
  closed.trim.close();
  tick(60_000);
  assert.equal(closed.calls.length, 0);
});

test('defaults: an 8 MiB burst arms it, 200 ms of quiet runs it', () => {
  assert.deepEqual({ ...MEMORY_TRIM_DEFAULTS }, { minBytes: 8 * 1024 * 1024, idleMs: 200, maxDelayMs: 10_000 });
});

test('malloc_trim through koffi gives freed heap pages back to the OS (glibc)', async () => {
  const mallocTrim = loadMallocTrim();
  assert.ok(mallocTrim, 'glibc malloc_trim should load on this machine (Linux, glibc, koffi prebuilt)');
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  // 64 MiB in 20 KiB buffers (below glibc's mmap threshold, so from the heap); keep every 16th
  // alive so the freed chunks sit between live ones and free() cannot shrink the heap top.
  let bufs: Buffer[] | undefined = Array.from({ length: 3200 }, (_, i) => Buffer.alloc(20 * 1024, i));
  const kept = bufs.filter((_, i) => i % 16 === 15);
  bufs = undefined;
  gc();
  await new Promise((r) => setImmediate(r)); // backing stores may be freed after the GC's own task
  gc();
  const before = process.memoryUsage.rss();
  mallocTrim();
  const released = before - process.memoryUsage.rss();
  assert.ok(released > 24 << 20, `malloc_trim released ${(released / 1048576).toFixed(1)} MiB of ~60 MiB freed`);
  assert.equal(kept.length, 200);
});
