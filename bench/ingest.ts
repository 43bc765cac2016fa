// Ingest bench: acknowledged writes/s and latency for single catalog
// registrations (memory and SQLite) and for /v1/txn batches, over real
// sockets. The hub runs in this process; the load comes from a child process
// (a separate process) with keep-alive connections, so the client does not
// steal the hub's loop.
//   node --import tsx bench/ingest.ts [--seconds 5] [--concurrency 64] [--batch 64]

import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type Config, DEFAULTS, type StoreConfig } from '../src/config';
import { createHub } from '../src/hub';
import { createLogger } from '../src/logger';
import { spawnTracked } from '../test/helpers/procs';

interface LoadSpec {
  port: number;
  mode: 'single' | 'txn';
  batch: number;
  concurrency: number;
  warmupMs: number;
  durationMs: number;
  tag: string;
}

interface LoadResult {
  requests: number;
  failures: number;
  latenciesMs: number[];
  elapsedMs: number;
}

/**
 * The load generator, run as a separate plain-JavaScript process so the hub's
 * CPU time can be measured on its own: `concurrency` clients over keep-alive
 * connections, each sending its next request when the previous one is answered.
 */
const LOAD_WORKER = `
const { Agent, request } = require('node:http');
const spec = JSON.parse(process.env.XDSHUB_BENCH_SPEC);
const agent = new Agent({ keepAlive: true, maxSockets: spec.concurrency });
const path = spec.mode === 'single' ? '/v1/catalog/register' : '/v1/txn';
function body(client, n) {
  const node = (i) => spec.tag + '-' + client + '-' + n + '-' + i;
  if (spec.mode === 'single') {
    return JSON.stringify({ Node: node(0), Address: '10.0.0.1', Service: { Service: 'bench', ID: node(0), Port: 8080, Tags: ['b'] } });
  }
  const ops = [];
  for (let i = 0; i < spec.batch; i++) ops.push({ Node: { Verb: 'set', Node: { Node: node(i), Address: '10.0.0.1' } } });
  return JSON.stringify(ops);
}
function send(payload) {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: spec.port, method: 'PUT', path, agent,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', reject);
    req.end(payload);
  });
}
(async () => {
  const measureFrom = performance.now() + spec.warmupMs;
  const end = measureFrom + spec.durationMs;
  // Tells the hub side when the measured window opens (it reads its CPU time then).
  setTimeout(() => process.stdout.write('measuring\\n'), spec.warmupMs);
  const latencies = [];
  let requests = 0, failures = 0;
  await Promise.all(Array.from({ length: spec.concurrency }, async (_, client) => {
    for (let n = 0; performance.now() < end; n++) {
      const t0 = performance.now();
      const status = await send(body(client, n));
      const t1 = performance.now();
      if (t0 < measureFrom) continue;
      if (status === 200) { requests++; latencies.push(t1 - t0); } else failures++;
    }
  }));
  agent.destroy();
  process.stdout.write(JSON.stringify({ requests, failures, latenciesMs: latencies, elapsedMs: spec.durationMs }) + '\\n');
})();
`;

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function scenario(name: string, store: StoreConfig, spec: Omit<LoadSpec, 'port' | 'tag'>) {
  const dataDir = await mkdtemp(join(tmpdir(), 'xdshub-bench-'));
  const config: Config = {
    ...DEFAULTS,
    store,
    dataDir,
    httpPort: 0,
    grpcPort: 0,
    logLevel: 'silent',
    nodeName: 'bench',
    compactEvery: 0,
  };
  const hub = await createHub(config, createLogger('silent'));
  try {
    const load: LoadSpec = { ...spec, port: hub.httpPort, tag: name.replace(/\W/g, '') };
    let cpuBefore = process.cpuUsage();
    const child = spawnTracked(process.execPath, ['-e', LOAD_WORKER], {
      env: { ...process.env, XDSHUB_BENCH_SPEC: JSON.stringify(load) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (out.startsWith('measuring\n') && cpuBefore !== undefined && !measuring) {
        measuring = true;
        cpuBefore = process.cpuUsage();
      }
    });
    let measuring = false;
    const [code] = (await once(child, 'exit')) as [number | null];
    if (code !== 0) throw new Error(`load generator exited with ${code}`);
    const cpu = process.cpuUsage(cpuBefore);
    const result = JSON.parse(out.slice('measuring\n'.length)) as LoadResult;
    const sorted = result.latenciesMs.sort((a, b) => a - b);
    const perRequest = spec.mode === 'txn' ? spec.batch : 1;
    const seconds = result.elapsedMs / 1000;
    return {
      scenario: name,
      store: store.kind,
      concurrency: spec.concurrency,
      'writes/s': Math.round((result.requests * perRequest) / seconds),
      'requests/s': Math.round(result.requests / seconds),
      'p50 ms': Number(percentile(sorted, 50).toFixed(2)),
      'p99 ms': Number(percentile(sorted, 99).toFixed(2)),
      failures: result.failures,
      // The hub's own CPU per acknowledged write in the measured window: a figure
      // that depends much less than throughput on how busy the machine is.
      'hub CPU µs/write': Math.round((cpu.user + cpu.system) / Math.max(1, result.requests * perRequest)),
    };
  } finally {
    await hub.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string', default: '5' },
      concurrency: { type: 'string', default: '64' },
      batch: { type: 'string', default: '64' },
      only: { type: 'string' },
    },
  });
  const durationMs = Number(values.seconds) * 1000;
  const concurrency = Number(values.concurrency);
  const batch = Number(values.batch);
  const common = { warmupMs: 1000, durationMs, concurrency, batch };
  const scenarios: Array<[string, StoreConfig, 'single' | 'txn', number]> = [
    ['single register', { kind: 'memory' }, 'single', concurrency],
    ['single register', { kind: 'sqlite' }, 'single', concurrency],
    [`txn x${batch}`, { kind: 'memory' }, 'txn', Math.max(1, Math.floor(concurrency / 8))],
    [`txn x${batch}`, { kind: 'sqlite' }, 'txn', Math.max(1, Math.floor(concurrency / 8))],
  ];
  const rows = [];
  for (const [name, store, mode, c] of scenarios) {
    if (values.only && !`${name} ${store.kind}`.includes(values.only)) continue;
    rows.push(await scenario(name, store, { ...common, mode, concurrency: c }));
  }
  console.table(rows);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
