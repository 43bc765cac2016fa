// Log append throughput and latency for every store. Prints figures, asserts nothing.
//   node --import tsx bench/log.ts [secondsPerCase] [store filter, e.g. redis]
// Cases: 64 concurrent single-entry writers (group commit at work), 1 writer
// (one commit per append), batches of 100 entries from 4 writers, and single
// appends offered at a steady 5,000/s (the HTTP layer's target) to see how long
// the event loop is held up at that load.
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { Log } from '../src/log/log';
import { createMemoryLog } from '../src/log/memory';
import { createRedisLog } from '../src/log/redis';
import { createSqliteLog } from '../src/log/sqlite';
import { startRedis } from '../test/helpers/redis';
import { tmpDir } from '../test/helpers/tmp';

const seconds = Number(process.argv[2] ?? 3);
const only = process.argv[3];
const PAYLOAD = JSON.stringify({
  Type: 'register',
  Node: 'node-17',
  Service: { ID: 'web-42', Service: 'web', Address: '10.0.3.17', Port: 8080, Tags: ['v1', 'canary'] },
}); // ≈ 150 bytes, the size of a typical catalog command

interface Case {
  name: string;
  writers: number;
  batch: number;
  /** Paced case: single appends offered at this rate instead of as fast as possible. */
  rate?: number;
}
const CASES: Case[] = [
  { name: 'single, 64 writers', writers: 64, batch: 1 },
  { name: 'single, 1 writer', writers: 1, batch: 1 },
  { name: 'batch of 100, 4 writers', writers: 4, batch: 100 },
  { name: 'paced 5,000/s singles', writers: 0, batch: 1, rate: 5_000 },
];

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

async function run(log: Log, c: Case): Promise<string> {
  const latencies: number[] = [];
  const payloads = Array.from({ length: c.batch }, () => PAYLOAD);
  let entries = 0;
  // How long other work (HTTP, Subscribe, xDS) would wait for the loop meanwhile: a
  // synchronous fsync inside a commit shows up here.
  const loopDelay = monitorEventLoopDelay({ resolution: 1 });
  loopDelay.enable();
  const eluStart = performance.eventLoopUtilization();
  const start = performance.now();
  const deadline = start + seconds * 1000;
  const one = async () => {
    const t0 = performance.now();
    await log.append(payloads);
    latencies.push(performance.now() - t0);
    entries += c.batch;
  };
  if (c.rate !== undefined) {
    // Every 10 ms, offer the appends due since the start (catches up after a stall).
    const inFlight: Promise<void>[] = [];
    let offered = 0;
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        const now = performance.now();
        const due = Math.floor(((Math.min(now, deadline) - start) / 1000) * c.rate!);
        for (; offered < due; offered++) inFlight.push(one());
        if (now >= deadline) {
          clearInterval(timer);
          resolve();
        }
      }, 10);
    });
    await Promise.all(inFlight);
  } else {
    await Promise.all(
      Array.from({ length: c.writers }, async () => {
        while (performance.now() < deadline) await one();
      }),
    );
  }
  const elapsed = (performance.now() - start) / 1000;
  loopDelay.disable();
  const busy = performance.eventLoopUtilization(eluStart).utilization;
  latencies.sort((a, b) => a - b);
  return [
    c.name.padEnd(26),
    `${Math.round(entries / elapsed)
      .toLocaleString('en-US')
      .padStart(10)} entries/s`,
    `${Math.round(latencies.length / elapsed)
      .toLocaleString('en-US')
      .padStart(9)} appends/s`,
    `p50 ${pct(latencies, 50).toFixed(2).padStart(7)} ms`,
    `p99 ${pct(latencies, 99).toFixed(2).padStart(7)} ms`,
    // Only meaningful when paced: a saturated loop measures saturation (or never reaches its timer phase).
    c.rate === undefined
      ? ''
      : `loop busy ${(busy * 100).toFixed(0)}%, loop delay p99 ${(loopDelay.percentile(99) / 1e6).toFixed(1)} ms`,
  ].join('  ');
}

async function benchStore(label: string, open: () => Promise<{ log: Log; done(): Promise<void> }>) {
  for (const c of CASES) {
    const { log, done } = await open();
    try {
      console.log(`${label.padEnd(34)} ${await run(log, c)}`);
    } finally {
      await log.close();
      await done();
    }
  }
}

async function main() {
  console.log(`log append bench, ${seconds}s per case, payload ${PAYLOAD.length} bytes`);
  const bench = (name: string, open: Parameters<typeof benchStore>[1]) =>
    only && !name.includes(only) ? undefined : benchStore(name, open);
  await bench('memory', async () => ({ log: createMemoryLog(), done: async () => {} }));
  for (const synchronous of ['FULL', 'NORMAL'] as const) {
    await bench(`sqlite WAL synchronous=${synchronous}`, async () => {
      const dir = await tmpDir('xdshub-bench-sqlite');
      return { log: createSqliteLog({ path: join(dir.path, 'xdshub.db'), synchronous }), done: dir.cleanup };
    });
  }
  await bench('redis appendonly=no', async () => {
    const redis = await startRedis();
    return { log: createRedisLog({ url: redis.url }), done: redis.stop };
  });
  await bench('redis appendonly=yes fsync=always', async () => {
    const dir = await tmpDir('xdshub-bench-redis');
    const redis = await startRedis({ appendonly: true, dir: dir.path });
    return {
      log: createRedisLog({ url: redis.url }),
      done: async () => {
        await redis.stop();
        await dir.cleanup();
      },
    };
  });
}

void main();
