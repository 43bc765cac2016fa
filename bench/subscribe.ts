// Subscribe bench: N subscribers (each on its own connection, spread over
// client processes) on one service of M instances under churn, first against
// a bare grpc-js server-streaming method that writes one pre-encoded event of
// the same size (the runtime's limit), then against the hub (real catalog,
// publisher, Subscribe service). Both run closed-loop with the same window: a
// new change is produced only while every subscriber is within WINDOW changes
// of it, so the figures are the sustainable delivery rate (latency there is
// the window's queue). A third run holds the hub at 0.67× the bare rate and
// measures its latency at that pace.
//
//   node --import tsx bench/subscribe.ts
//   env: SUBSCRIBERS=1000 PROCS=4 INSTANCES=1000 SECONDS=20 WINDOW=16
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { loadSubscribeProto, SUBSCRIBE_METHOD_PATH } from '../src/subscribe/proto';
import { forkTracked } from '../test/helpers/procs';
import { type ClientToMain, HIST_BUCKETS, type MainToServer, percentile, type ServerToMain } from './subscribe/common';

const env = (name: string, fallback: number): number => Number(process.env[name] ?? fallback);
const SUBSCRIBERS = env('SUBSCRIBERS', 1000);
const PROCS = env('PROCS', 4);
const INSTANCES = env('INSTANCES', 1000);
const SECONDS = env('SECONDS', 20);
const WINDOW = env('WINDOW', 16);
const DIR = join(__dirname, 'subscribe');
const execArgv = ['--import', 'tsx'];

interface PhaseResult {
  name: string;
  connectSeconds: number;
  snapshotEvents: number;
  delivered: number;
  seconds: number;
  produced: number;
  cpuMs: number;
  p50: number;
  p99: number;
  max: number;
  rssMiB: number;
  eventBytes: number;
  cache?: string;
  slow?: number;
  ended: Record<string, number>;
}

function nextMessage<T>(child: ChildProcess, type: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: { type: string }) => {
      if (m.type !== type) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(m as T);
    };
    const onExit = (code: number | null) => reject(new Error(`${type}: process exited (${code})`));
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

async function phase(name: string, script: 'hub-server.ts' | 'bare-server.ts', perSecond = 0): Promise<PhaseResult> {
  const server = forkTracked(join(DIR, script), [String(INSTANCES), String(perSecond)], { execArgv });
  const { port } = await nextMessage<Extract<ServerToMain, { type: 'ready' }>>(server, 'ready');
  const proto = loadSubscribeProto();
  const request = Buffer.from(
    proto.SubscribeRequest.encode(
      proto.SubscribeRequest.fromObject({ Topic: 'ServiceHealth', NamedSubject: { Key: 'web' } }),
    ).finish(),
  );

  const started = performance.now();
  const clients: ChildProcess[] = [];
  const progress = new Map<ChildProcess, Extract<ClientToMain, { type: 'progress' }>>();
  for (let p = 0; p < PROCS; p++) {
    const count = Math.floor(SUBSCRIBERS / PROCS) + (p < SUBSCRIBERS % PROCS ? 1 : 0);
    const c = forkTracked(
      join(DIR, 'client.ts'),
      [`127.0.0.1:${port}`, String(count), SUBSCRIBE_METHOD_PATH, request.toString('hex')],
      { execArgv },
    );
    c.on('message', (m: ClientToMain) => {
      if (m.type === 'progress') progress.set(c, m);
    });
    clients.push(c);
  }
  const sum = (f: (m: Extract<ClientToMain, { type: 'progress' }>) => number) =>
    [...progress.values()].reduce((a, m) => a + f(m), 0);

  // Connect phase: every subscriber has its snapshot and EndOfSnapshot.
  await new Promise<void>((resolve) => {
    const check = setInterval(() => {
      if (progress.size === PROCS && sum((m) => m.live) === SUBSCRIBERS) {
        clearInterval(check);
        resolve();
      }
    }, 50);
  });
  const connectSeconds = (performance.now() - started) / 1000;
  const snapshotEvents = sum((m) => m.snapshotEvents);

  // Churn phase, closed-loop: allow changes up to the slowest subscriber + WINDOW.
  const tell = (m: MainToServer) => server.send(m);
  tell({ type: 'allow', upTo: 1 + WINDOW });
  tell({ type: 'start' });
  const churnStart = performance.now();
  const pacer = setInterval(() => {
    const minSeq = Math.min(...[...progress.values()].map((m) => m.minSeq));
    tell({ type: 'allow', upTo: Math.max(0, minSeq) + 1 + WINDOW });
  }, 20);
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  clearInterval(pacer);
  const stats = nextMessage<Extract<ServerToMain, { type: 'stats' }>>(server, 'stats');
  tell({ type: 'stop' });
  const serverStats = await stats;
  const seconds = (performance.now() - churnStart) / 1000;

  const finals = clients.map((c) => nextMessage<Extract<ClientToMain, { type: 'final' }>>(c, 'final'));
  for (const c of clients) c.send({ type: 'stop' });
  const results = await Promise.all(finals);
  await Promise.all([server, ...clients].map((c) => (c.exitCode === null ? once(c, 'exit') : undefined)));

  const hist = new Array<number>(HIST_BUCKETS).fill(0);
  const ended: Record<string, number> = {};
  for (const r of results) {
    r.hist.forEach((n, i) => (hist[i] = (hist[i] as number) + n));
    for (const [k, v] of Object.entries(r.ended)) ended[k] = (ended[k] ?? 0) + v;
  }
  let max = 0;
  hist.forEach((n, i) => n > 0 && (max = i));
  return {
    name,
    connectSeconds,
    snapshotEvents,
    delivered: results.reduce((a, r) => a + r.received, 0),
    seconds,
    produced: serverStats.produced,
    cpuMs: serverStats.cpuMs,
    p50: percentile(hist, 0.5),
    p99: percentile(hist, 0.99),
    max,
    rssMiB: serverStats.rssBytes / 2 ** 20,
    eventBytes: serverStats.eventBytes,
    cache:
      serverStats.cacheHits === undefined
        ? undefined
        : `${serverStats.cacheHits}/${serverStats.cacheHits + (serverStats.cacheMisses ?? 0)}`,
    slow: serverStats.slowConsumers,
    ended,
  };
}

async function main(): Promise<void> {
  console.log(
    `subscribe bench: ${SUBSCRIBERS} subscribers over ${PROCS} client processes, 1 service × ${INSTANCES} instances, ${SECONDS}s churn per phase, window ${WINDOW}`,
  );
  const bare = await phase('bare', 'bare-server.ts');
  const hub = await phase('hub', 'hub-server.ts');
  // The target pace: the hub held at 0.67× the bare server's rate, where its latency must stay under 1 s.
  const targetRate = (0.67 * bare.produced) / bare.seconds;
  const paced = await phase(`hub @${targetRate.toFixed(1)}/s`, 'hub-server.ts', targetRate);
  const rows = [bare, hub, paced].map((r) => ({
    server: r.name,
    'event bytes': r.eventBytes,
    'connect+snapshot s': r.connectSeconds.toFixed(1),
    'snapshot events': r.snapshotEvents,
    'changes/s': (r.produced / r.seconds).toFixed(1),
    'delivered events/s': Math.round(r.delivered / r.seconds),
    'server CPU ms/change': (r.cpuMs / Math.max(1, r.produced)).toFixed(2),
    'p50 ms': r.p50,
    'p99 ms': r.p99,
    'max ms': r.max,
    'snapshot cache hits': r.cache ?? '-',
    'slow consumers': r.slow ?? '-',
    'server RSS MiB': r.rssMiB.toFixed(0),
  }));
  console.table(rows);
  const ratio = hub.delivered / hub.seconds / (bare.delivered / bare.seconds);
  console.log(`hub / bare delivered rate: ${ratio.toFixed(2)} (target ≥ 0.67)`);
  console.log(
    `hub at 0.67× the bare rate: p99 ${paced.p99} ms (target < 1000); saturated closed-loop latency is the window (${WINDOW} changes) over the rate`,
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
