// Blocking-query bench: acknowledged unrelated writes/s while 0, 1,000 and
// 5,000 blocking queries wait on each blocking read endpoint, and the hub's
// resident memory per waiting query. The hub's CPU time per write is printed
// too: on a shared machine it moves much less with the load than the rate, so
// "× CPU/write with none" is the steadier measure of what the waiters cost
// (1.00: nothing; the write capacity scales with its inverse).
//
// The hub is a real `xdshub serve` child process (memory store, so the log's
// disk does not blur the figures), preloaded with 1,000 nodes, each with one
// service instance and one check. The waiters are real HTTP requests, one
// socket each, holding `?index=<current>&wait=10m`. The writes re-register one
// service (`bench-w`, no checks) on its own node with a new port: they move the
// services table, that node and that service, and nothing any waiter reads. So
// with waiters that cost nothing the write rate stays at the rate with none
// (target: at least 0.8 of it), and no waiter answers.
//
// With --leave N,M it measures waiters leaving instead: N blocking queries
// parked, every socket closed at once, and the answer time of the write sent
// at that moment (docs/http-api.md, "Blocking queries").
//
//   npm run bench:blocking -- [--seconds 4] [--waiters 1000,5000] [--concurrency 16] [--only nodes]
//   npm run bench:blocking -- --leave 5000,9000 [--only nodes]
//   (with no other benchmark on the machine)
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { spawnTracked } from '../test/helpers/procs';

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '4' },
    waiters: { type: 'string', default: '1000,5000' },
    concurrency: { type: 'string', default: '16' },
    nodes: { type: 'string', default: '1000' },
    only: { type: 'string' },
    leave: { type: 'string' },
  },
});
const SECONDS = Number(args.seconds);
const LEVELS = [0, ...args.waiters!.split(',').map(Number)];
const CONCURRENCY = Number(args.concurrency);
const NODES = Number(args.nodes);
const HUB_NODE = 'bench-hub';

/** Every blocking read endpoint, each at a key the unrelated writes never touch. */
const ENDPOINTS: Array<[name: string, path: string]> = [
  ['nodes', '/v1/catalog/nodes'],
  ['state-any', '/v1/health/state/any'],
  ['node', '/v1/catalog/node/node-1'],
  ['node-services', '/v1/catalog/node-services/node-1'],
  ['health-node', '/v1/health/node/node-1'],
  ['health-checks', '/v1/health/checks/svc-1'],
  ['agent-services', '/v1/agent/services'],
  ['agent-checks', '/v1/agent/checks'],
  ['health-service (view)', '/v1/health/service/svc-1'],
  ['catalog-service (view)', '/v1/catalog/service/svc-1'],
  ['catalog-services (view)', '/v1/catalog/services'],
  ['config-kind (view)', '/v1/config/service-defaults'],
];

interface Hub {
  child: ChildProcess;
  port: number;
}

async function startHub(): Promise<Hub> {
  const root = join(__dirname, '..');
  const child = spawnTracked(
    process.execPath,
    // All waiters come from one address: lift the per-client cap on blocking queries (1,024 by default).
    [
      '--import',
      'tsx',
      join(root, 'src/cli/main.ts'),
      'serve',
      '--store',
      'memory',
      '--http-port',
      '0',
      '--grpc-port',
      '0',
      '--log-level',
      'warn',
      '--node-name',
      HUB_NODE,
      '--http-max-blocking-per-client',
      '100000',
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    lines.on('line', (line) => {
      const m = /^xdshub listening http=http:\/\/[^:]+:(\d+)/.exec(line);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`hub exited (${code}) before starting`)));
  });
  return { child, port };
}

/** CPU time the hub process used so far (all threads), in ms: utime + stime from /proc (clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function rssKiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : NaN;
}

const writers = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });

function send(
  port: number,
  method: string,
  path: string,
  body?: unknown,
  agent: Agent = writers,
): Promise<{ status: number; index: string; text: string }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method, path, agent, headers: payload ? { 'content-type': 'application/json' } : {} },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, index: String(res.headers['x-consul-index']), text }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

async function preload(port: number): Promise<void> {
  for (let start = 0; start < NODES; start += 40) {
    const ops: unknown[] = [];
    for (let i = start; i < Math.min(NODES, start + 40); i++) {
      ops.push({ Node: { Verb: 'set', Node: { Node: `node-${i}`, Address: `10.1.${i >> 8}.${i & 255}` } } });
      ops.push({
        Service: {
          Verb: 'set',
          Node: `node-${i}`,
          Service: { ID: `svc-${i % 50}-${i}`, Service: `svc-${i % 50}`, Port: 80 },
        },
      });
      ops.push({
        Check: {
          Verb: 'set',
          Check: { Node: `node-${i}`, CheckID: `chk-${i}`, ServiceID: `svc-${i % 50}-${i}`, Status: 'passing' },
        },
      });
    }
    const res = await send(port, 'PUT', '/v1/txn', ops);
    if (res.status !== 200) throw new Error(`preload: ${res.status} ${res.text}`);
  }
  const setup: Array<[string, unknown]> = [
    [
      '/v1/catalog/register',
      { Node: 'bench-writer', Address: '10.9.9.9', Service: { ID: 'bench-w', Service: 'bench-w', Port: 1 } },
    ],
    ['/v1/agent/service/register', { Name: 'agent-svc', Port: 90, Check: { TTL: '1h' } }],
    ['/v1/config', { Kind: 'service-defaults', Name: 'svc-1', Protocol: 'http' }],
  ];
  for (const [path, body] of setup) {
    const res = await send(port, 'PUT', path, body);
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text}`);
  }
}

let port = 0;
let sequence = 0;
/** One unrelated write: the bench-w service on a new port. */
const unrelatedWrite = () =>
  send(port, 'PUT', '/v1/catalog/register', {
    Node: 'bench-writer',
    SkipNodeUpdate: true,
    Service: { ID: 'bench-w', Service: 'bench-w', Port: 1000 + (++sequence % 60000) },
  });

async function writeRate(
  seconds: number,
  pid: number,
): Promise<{ perSecond: number; failures: number; cpuUsPerWrite: number }> {
  let done = 0;
  let failures = 0;
  const end = performance.now() + seconds * 1000;
  const started = performance.now();
  const cpuBefore = cpuMs(pid);
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < end) {
        const res = await unrelatedWrite();
        if (res.status === 200) done++;
        else failures++;
      }
    }),
  );
  const cpu = cpuMs(pid) - cpuBefore;
  return {
    perSecond: done / ((performance.now() - started) / 1000),
    failures,
    cpuUsPerWrite: (cpu * 1000) / Math.max(1, done),
  };
}

interface Waiters {
  /** Answers so far, by HTTP status ("200: 3, 408: 1"); empty when none. */
  answered(): string;
  release(): Promise<void>;
}

/** Opens `count` blocking queries on `path` at its current index, one socket each; resolves once all are sent. */
async function openWaiters(path: string, count: number): Promise<Waiters> {
  const current = await send(port, 'GET', path);
  if (current.status !== 200) throw new Error(`${path}: ${current.status} ${current.text}`);
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  const answered = new Map<number, number>();
  let sent = 0;
  let allSent!: () => void;
  const sentAll = new Promise<void>((resolve) => (allSent = resolve));
  const url = `${path}${path.includes('?') ? '&' : '?'}index=${current.index}&wait=10m`;
  for (let i = 0; i < count; i++) {
    const req = request({ host: '127.0.0.1', port, method: 'GET', path: url, agent }, (res) => {
      answered.set(res.statusCode!, (answered.get(res.statusCode!) ?? 0) + 1);
      res.resume();
    });
    req.on('error', () => undefined); // released below by destroying the sockets
    req.on('finish', () => {
      if (++sent === count) allSent();
    });
    req.end();
  }
  if (count > 0) await sentAll;
  return {
    answered: () => [...answered].map(([code, n]) => `${n} (${code})`).join(', ') || '0',
    async release() {
      agent.destroy();
    },
  };
}

/** Waits until the hub's RSS stops growing (the waiters are parsed and parked), at most `maxMs`. */
async function settle(pid: number, maxMs = 15_000): Promise<void> {
  const end = Date.now() + maxMs;
  let last = rssKiB(pid);
  await sleep(500);
  while (Date.now() < end) {
    const probe = await send(port, 'GET', '/v1/status/leader');
    if (probe.status !== 200) throw new Error('hub not answering');
    const now = rssKiB(pid);
    if (Math.abs(now - last) < 256) return;
    last = now;
    await sleep(500);
  }
}

function loadavg(): string {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}

interface Figure {
  perSecond: number;
  failures: number;
  cpuUsPerWrite: number;
  rssPerWaiterKiB: number;
  answered: string;
}

/**
 * One figure, in a hub of its own (started, preloaded, warmed up), so memory
 * one endpoint's waiters freed cannot hide the next one's: RSS is read once the
 * warmed-up hub is quiet, again once the waiters are parked, and the writes run
 * with them in place.
 */
async function measure(path: string, waiting: number): Promise<Figure> {
  const hub = await startHub();
  port = hub.port;
  const pid = hub.child.pid!;
  try {
    await preload(port);
    await writeRate(1, pid); // warm-up
    await settle(pid);
    const before = rssKiB(pid);
    const waiters = await openWaiters(path, waiting);
    if (waiting > 0) await settle(pid);
    const rssPerWaiterKiB = waiting > 0 ? (rssKiB(pid) - before) / waiting : NaN;
    const { perSecond, failures, cpuUsPerWrite } = await writeRate(SECONDS, pid);
    const answered = waiters.answered();
    await waiters.release();
    return { perSecond, failures, cpuUsPerWrite, rssPerWaiterKiB, answered };
  } finally {
    hub.child.kill('SIGTERM');
    await once(hub.child, 'exit');
  }
}

/** File descriptors the hub holds open (its sockets among them). */
function openFds(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

interface LeaveFigure {
  writeMs: number;
  /** Until the hub has closed every waiter's socket and a trivial read after that answered. */
  doneMs: number;
  cpuUsPerLeave: number;
  answered: string;
}

/**
 * Waiters leaving at once: `count` blocking queries on `path` are parked, then
 * every socket is destroyed together and one unrelated write is sent at the
 * same moment (on a socket already open). Its answer time is what a writer
 * pays for the disconnects queued ahead of it. "Done" is once the hub holds no
 * more sockets than before the waiters came and a trivial read answered: it
 * has worked through every disconnect. The hub's CPU time over that span per
 * disconnect moves less with the machine's load than the times do.
 */
async function leave(path: string, count: number): Promise<LeaveFigure> {
  const hub = await startHub();
  port = hub.port;
  const pid = hub.child.pid!;
  try {
    await preload(port);
    await writeRate(1, pid); // warm-up; leaves keep-alive sockets open for the write below
    const fdsBefore = openFds(pid);
    const waiters = await openWaiters(path, count);
    await settle(pid);
    const cpuBefore = cpuMs(pid);
    const started = performance.now();
    await waiters.release();
    const res = await unrelatedWrite();
    const writeMs = performance.now() - started;
    if (res.status !== 200) throw new Error(`write: ${res.status} ${res.text}`);
    while (openFds(pid) > fdsBefore) await sleep(10);
    await send(port, 'GET', '/v1/status/leader');
    const doneMs = performance.now() - started;
    const cpuUsPerLeave = ((cpuMs(pid) - cpuBefore) * 1000) / count;
    return { writeMs, doneMs, cpuUsPerLeave, answered: waiters.answered() };
  } finally {
    hub.child.kill('SIGTERM');
    await once(hub.child, 'exit');
  }
}

async function leaveMain(counts: number[]): Promise<void> {
  console.log(`blocking queries leaving at once: ${NODES} nodes, a fresh hub per figure, load average ${loadavg()}`);
  console.log('endpoint | leaving | next write answered (ms) | all done (ms) | hub CPU µs/disconnect | answered');
  console.log('---|---|---|---|---|---');
  for (const [name, path] of ENDPOINTS) {
    if (args.only && !name.includes(args.only)) continue;
    for (const count of counts) {
      const f = await leave(path, count);
      const figures = [f.writeMs.toFixed(0), f.doneMs.toFixed(0), f.cpuUsPerLeave.toFixed(0)];
      console.log([name, count, ...figures, f.answered].join(' | '));
    }
  }
  console.log(`load average at the end: ${loadavg()}`);
}

async function main(): Promise<void> {
  if (args.leave) {
    try {
      return await leaveMain(args.leave.split(',').map(Number));
    } finally {
      writers.destroy();
    }
  }
  try {
    console.log(
      `blocking-query bench: ${NODES} nodes, ${CONCURRENCY} writers, ${SECONDS} s per figure, a fresh hub per figure, load average ${loadavg()}`,
    );
    console.log(
      'endpoint | waiters | unrelated writes/s | × rate with none | hub CPU µs/write | × CPU/write with none | hub RSS KiB/waiter | waiters answered',
    );
    console.log('---|---|---|---|---|---|---|---');
    for (const [name, path] of ENDPOINTS) {
      if (args.only && !name.includes(args.only)) continue;
      let none: Figure | undefined;
      for (const level of LEVELS) {
        const f = await measure(path, level);
        if (level === 0) none = f;
        console.log(
          [
            name,
            level,
            f.perSecond.toFixed(0) + (f.failures ? ` (${f.failures} failed)` : ''),
            none ? (f.perSecond / none.perSecond).toFixed(2) : '',
            f.cpuUsPerWrite.toFixed(0),
            none ? (f.cpuUsPerWrite / none.cpuUsPerWrite).toFixed(2) : '',
            Number.isNaN(f.rssPerWaiterKiB) ? '' : f.rssPerWaiterKiB.toFixed(1),
            level === 0 ? '' : f.answered,
          ].join(' | '),
        );
      }
    }
    console.log(`load average at the end: ${loadavg()}`);
  } finally {
    writers.destroy();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
