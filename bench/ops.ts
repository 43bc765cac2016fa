// Operator tools bench (docs/operator-tools.md, "Costs"):
//  1. history memory per node per 1,000 pushes: the history is fed the events
//     the transport reports (the transport shares one name → version map per
//     response content between the nodes that got it, and so does this bench);
//     heap after gc, per node, for a fleet receiving 1,000 one-endpoint Delta
//     pushes, and for 1,000 SotW CDS pushes of a 100-cluster set.
//  2. dry-run latency of one change against S services and N connected nodes,
//     as the client sees it (from sending PUT ...?dry-run=true over a real
//     socket to holding the whole answer): a real hub in this process, N real
//     Delta ADS streams over loopback gRPC from another process
//     (bench/ops/clients.ts: wildcard CDS, EDS of ten services). The reference
//     measured in the same run is the same change really written
//     (acknowledgement latency).
//   node --expose-gc --import tsx bench/ops.ts [--services 1000] [--nodes 1000] [--runs 100] [--real-runs 30] [--dry-run-only]
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { createHistory } from '../src/ops/history';
import { TypeUrl } from '../src/xds/transport/type-urls';
import { forkTracked } from '../test/helpers/procs';
import { startOpsHub } from '../test/ops/helpers';

const { values } = parseArgs({
  options: {
    services: { type: 'string', default: '1000' },
    nodes: { type: 'string', default: '1000' },
    runs: { type: 'string', default: '100' },
    'real-runs': { type: 'string', default: '30' },
    'history-nodes': { type: 'string', default: '200' },
    'dry-run-only': { type: 'boolean', default: false },
  },
});
const S = Number(values.services);
const N = Number(values.nodes);
const RUNS = Number(values.runs);
const REAL_RUNS = Number(values['real-runs']);
const HN = Number(values['history-nodes']);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

function heap(): number {
  gc!();
  gc!();
  return process.memoryUsage().heapUsed;
}

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

async function historyCost(kind: 'delta' | 'sotw'): Promise<number> {
  const base = heap();
  const history = createHistory({ perNode: 1_000, hub: 'bench', index: () => 42n });
  const nodes = Array.from({ length: HN }, (_, i) => ({
    id: `envoy-${i}`,
    cluster: 'edge',
    clientFeatures: [],
    userAgent: 'envoy',
  }));
  const sotwNames = Array.from({ length: 100 }, (_, i) => `svc-${i}`);
  for (let p = 0; p < 1_000; p++) {
    // One map per push content, shared by the fleet (as the transport's body cache shares `sent`).
    const sent =
      kind === 'delta'
        ? new Map([[`svc-${p % 100}`, `v${p}`.padEnd(32, '0')]])
        : new Map(
            sotwNames.map((n, i) => [n, (i === p % 100 ? `v${p}` : `v${i}`).padEnd(32, '0')] as [string, string]),
          );
    for (const node of nodes) {
      const nonce = `${p.toString(36)}-${node.id}`;
      history.sent!({
        stream: 1,
        node,
        typeUrl: kind === 'delta' ? TypeUrl.ClusterLoadAssignment : TypeUrl.Cluster,
        nonce,
        version: kind === 'sotw' ? `set${p}` : '',
        resources: sent,
        variant: kind,
        at: Date.now(),
      });
      history.answered!({ stream: 1, node, typeUrl: TypeUrl.Cluster, nonce, error: undefined, at: Date.now() });
    }
  }
  const perNode = (heap() - base) / HN;
  if ((await history.of('envoy-0')).length !== 1_000) throw new Error('history lost records');
  return perNode;
}

interface DryRunBody {
  diffs?: { nodes: string[] }[];
  /** The answer's shape before each distinct diff was listed once (kept so this bench measures older builds too). */
  nodes?: unknown[];
  ms: number;
}

async function dryRunLatency(): Promise<void> {
  const h = await startOpsHub({});
  let fleet: ChildProcess | undefined;
  try {
    const ops = [];
    for (let i = 0; i < S; i++)
      ops.push({
        Service: {
          Verb: 'set',
          Node: `node-${i % 50}`,
          Service: { Service: `svc-${i}`, ID: `svc-${i}-1`, Port: 10_000 + i },
        },
      });
    for (let i = 0; i < 50; i++)
      await h.hub.http.inject({
        method: 'PUT',
        url: '/v1/txn',
        payload: JSON.stringify([{ Node: { Verb: 'set', Node: { Node: `node-${i}`, Address: `10.0.0.${i}` } } }]),
      });
    for (let i = 0; i < ops.length; i += 64) {
      const res = await h.hub.http.inject({
        method: 'PUT',
        url: '/v1/txn',
        payload: JSON.stringify(ops.slice(i, i + 64)),
      });
      if (res.statusCode !== 200) throw new Error(res.body);
    }
    // The clients live in a process of their own: the hub's process holds only the server side of the streams.
    fleet = forkTracked(join(__dirname, 'ops', 'clients.ts'), [String(h.hub.grpcPort), String(N)], {
      execArgv: ['--import', 'tsx'],
    });
    const synced = await new Promise<{ ms: number }>((resolve, reject) => {
      fleet!.on('message', (m: { kind: string; ms: number; message?: string }) =>
        m.kind === 'synced' ? resolve(m) : reject(new Error(m.message)),
      );
      fleet!.once('exit', (code) => reject(new Error(`the client process exited (${code})`)));
    });
    console.log(`setup: ${S} services, ${N} Delta ADS streams (another process) synced in ${synced.ms} ms`);
    const changes: [string, string, (i: number) => unknown][] = [
      [
        'instance',
        '/v1/catalog/register',
        (i) => ({
          Node: 'node-1',
          Address: '10.0.0.1',
          Service: { Service: 'svc-7', ID: `svc-7-x${i}`, Port: 20_000 + i },
        }),
      ],
      [
        'config entry',
        '/v1/config',
        (i) => ({ Kind: 'service-defaults', Name: 'svc-9', Protocol: i % 2 ? 'http2' : 'grpc' }),
      ],
    ];
    /** One dry run as a client sees it: from sending the request to holding the whole answer. */
    const dryRun = async (path: string, body: unknown) => {
      const t = performance.now();
      const res = await fetch(`${h.hub.httpUrl}${path}?dry-run=true`, { method: 'PUT', body: JSON.stringify(body) });
      const text = await res.text();
      const ms = performance.now() - t;
      if (res.status !== 200) throw new Error(`dry run: ${res.status} ${text}`);
      const answer = JSON.parse(text) as DryRunBody;
      const affected = answer.diffs ? answer.diffs.reduce((n, d) => n + d.nodes.length, 0) : answer.nodes!.length;
      return {
        ms,
        compute: answer.ms,
        bytes: Buffer.byteLength(text),
        affected,
        distinct: answer.diffs?.length ?? answer.nodes!.length,
      };
    };
    for (const [what, path, make] of changes) {
      // The first dry run after start builds the dry run's translation from nothing: reported on its own.
      const first = await dryRun(path, make(-1));
      const dry: number[] = [];
      const compute: number[] = [];
      const real: number[] = [];
      let last = first;
      // Dry runs first, then the real writes: a real write's push to N clients would share the hub's loop with the next dry run.
      for (let i = 0; i < RUNS; i++) {
        last = await dryRun(path, make(i));
        dry.push(last.ms);
        compute.push(last.compute);
        await sleep(200);
      }
      for (let i = 0; i < REAL_RUNS; i++) {
        const t = performance.now();
        await (await fetch(`${h.hub.httpUrl}${path}`, { method: 'PUT', body: JSON.stringify(make(i)) })).text();
        real.push(performance.now() - t);
        await sleep(500);
      }
      console.log(
        `dry run, one ${what} change, ${S} services, ${N} connected nodes (${last.affected} affected, ${last.distinct} distinct diff(s), answer ${last.bytes} bytes), ${RUNS} runs: ` +
          `request → whole answer p50 ${pct(dry, 50).toFixed(1)} ms, p99 ${pct(dry, 99).toFixed(1)} ms, max ${Math.max(...dry).toFixed(1)} ms (target ≤ 200 ms); ` +
          `of which the prediction (copy, translation, diff) p50 ${pct(compute, 50).toFixed(1)} ms, p99 ${pct(compute, 99).toFixed(1)} ms; ` +
          `first dry run after start ${first.ms.toFixed(0)} ms; the real write's acknowledgement in the same run (${REAL_RUNS} runs): p50 ${pct(real, 50).toFixed(1)} ms, p99 ${pct(real, 99).toFixed(1)} ms`,
      );
    }
  } finally {
    fleet?.kill();
    await h.close();
  }
}

async function main(): Promise<void> {
  if (values['dry-run-only']) return dryRunLatency();
  const delta = await historyCost('delta');
  console.log(
    `history, ${HN} nodes × 1,000 Delta pushes (one CLA each), ACKed: ${(delta / 1024).toFixed(1)} KiB per node per 1,000 pushes`,
  );
  const sotw = await historyCost('sotw');
  console.log(
    `history, ${HN} nodes × 1,000 SotW CDS pushes (a 100-cluster set each), ACKed: ${(sotw / 1024).toFixed(1)} KiB per node per 1,000 pushes`,
  );
  await dryRunLatency();
}

void main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
