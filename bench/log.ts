// Log append throughput and latency for every store. Prints figures, asserts nothing.
//   node --import tsx bench/log.ts [secondsPerCase]
// Cases: 64 concurrent single-entry writers (group commit at work), 1 writer
// (one commit per append), and batches of 100 entries from 4 writers.
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Log } from '../src/log/log';
import { createMemoryLog } from '../src/log/memory';
import { createRedisLog } from '../src/log/redis';
import { createSqliteLog } from '../src/log/sqlite';
import { startRedis } from '../test/helpers/redis';
import { tmpDir } from '../test/helpers/tmp';

const seconds = Number(process.argv[2] ?? 3);
const PAYLOAD = JSON.stringify({
  Type: 'register',
  Node: 'node-17',
  Service: { ID: 'web-42', Service: 'web', Address: '10.0.3.17', Port: 8080, Tags: ['v1', 'canary'] },
}); // ≈ 150 bytes, the size of a typical catalog command

interface Case {
  name: string;
  writers: number;
  batch: number;
}
const CASES: Case[] = [
  { name: 'single, 64 writers', writers: 64, batch: 1 },
  { name: 'single, 1 writer', writers: 1, batch: 1 },
  { name: 'batch of 100, 4 writers', writers: 4, batch: 100 },
];

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

async function run(log: Log, c: Case): Promise<string> {
  const latencies: number[] = [];
  const payloads = Array.from({ length: c.batch }, () => PAYLOAD);
  let entries = 0;
  const start = performance.now();
  const deadline = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: c.writers }, async () => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        await log.append(payloads);
        latencies.push(performance.now() - t0);
        entries += c.batch;
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  return [
    c.name.padEnd(26),
    `${Math.round(entries / elapsed).toLocaleString('en-US').padStart(10)} entries/s`,
    `${Math.round(latencies.length / elapsed).toLocaleString('en-US').padStart(9)} appends/s`,
    `p50 ${pct(latencies, 50).toFixed(2).padStart(7)} ms`,
    `p99 ${pct(latencies, 99).toFixed(2).padStart(7)} ms`,
  ].join('  ');
}

async function bench(label: string, open: () => Promise<{ log: Log; done(): Promise<void> }>) {
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
