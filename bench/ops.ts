// Operator tools bench (docs/operator-tools.md, "Costs"):
//  1. history memory per node per 1,000 pushes: the history is fed the events
//     the transport reports (the transport shares one name → version map per
//     response content between the nodes that got it, and so does this bench);
//     heap after gc, per node, for a fleet receiving 1,000 one-endpoint Delta
//     pushes, and for 1,000 SotW CDS pushes of a 100-cluster set.
//  2. dry-run latency of one change against S services and N connected nodes:
//     a real hub (in this process), N real Delta ADS streams over loopback
//     gRPC (wildcard CDS, EDS of ten services), PUT ...?dry-run=true over a real socket; the
//     reference measured in the same run is the same change really written
//     (acknowledgement latency).
//   node --expose-gc --import tsx bench/ops.ts [--services 1000] [--nodes 1000] [--runs 30]
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { createHistory } from '../src/ops/history';
import { TypeUrl } from '../src/xds/transport/type-urls';
import { startOpsHub } from '../test/ops/helpers';
import { ScriptedClient } from '../test/xds/transport/helpers/client';

const { values } = parseArgs({ options: { services: { type: 'string', default: '1000' }, nodes: { type: 'string', default: '1000' }, runs: { type: 'string', default: '30' }, 'history-nodes': { type: 'string', default: '200' } } });
const S = Number(values.services);
const N = Number(values.nodes);
const RUNS = Number(values.runs);
const HN = Number(values['history-nodes']);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

function heap(): number {
  gc!();
  gc!();
  return process.memoryUsage().heapUsed;
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

function historyCost(kind: 'delta' | 'sotw'): number {
  const base = heap();
  const history = createHistory({ perNode: 1_000, index: () => 42n });
  const nodes = Array.from({ length: HN }, (_, i) => ({ id: `envoy-${i}`, cluster: 'edge', clientFeatures: [], userAgent: 'envoy' }));
  const sotwNames = Array.from({ length: 100 }, (_, i) => `svc-${i}`);
  for (let p = 0; p < 1_000; p++) {
    // One map per push content, shared by the fleet (as the transport's body cache shares `sent`).
    const sent =
      kind === 'delta'
        ? new Map([[`svc-${p % 100}`, `v${p}`.padEnd(32, '0')]])
        : new Map(sotwNames.map((n, i) => [n, (i === p % 100 ? `v${p}` : `v${i}`).padEnd(32, '0')] as [string, string]));
    for (const node of nodes) {
      const nonce = `${p.toString(36)}-${node.id}`;
      history.sent!({ stream: 1, node, typeUrl: kind === 'delta' ? TypeUrl.ClusterLoadAssignment : TypeUrl.Cluster, nonce, version: kind === 'sotw' ? `set${p}` : '', resources: sent, variant: kind, at: Date.now() });
      history.answered!({ stream: 1, node, typeUrl: TypeUrl.Cluster, nonce, error: undefined, at: Date.now() });
    }
  }
  const perNode = (heap() - base) / HN;
  if (history.of('envoy-0').length !== 1_000) throw new Error('history lost records');
  return perNode;
}

async function dryRunLatency(): Promise<void> {
  const h = await startOpsHub({});
  try {
    const ops = [];
    for (let i = 0; i < S; i++) ops.push({ Service: { Verb: 'set', Node: `node-${i % 50}`, Service: { Service: `svc-${i}`, ID: `svc-${i}-1`, Port: 10_000 + i } } });
    for (let i = 0; i < 50; i++) await h.hub.http.inject({ method: 'PUT', url: '/v1/txn', payload: JSON.stringify([{ Node: { Verb: 'set', Node: { Node: `node-${i}`, Address: `10.0.0.${i}` } } }]) });
    for (let i = 0; i < ops.length; i += 64) {
      const res = await h.hub.http.inject({ method: 'PUT', url: '/v1/txn', payload: JSON.stringify(ops.slice(i, i + 64)) });
      if (res.statusCode !== 200) throw new Error(res.body);
    }
    const t0 = Date.now();
    const clients: ScriptedClient[] = [];
    let synced = 0;
    for (let i = 0; i < N; i++) {
      const c = new ScriptedClient({ port: h.hub.grpcPort, path: '/envoy.service.discovery.v3.AggregatedDiscoveryService/DeltaAggregatedResources', kind: 'delta' });
      c.send({ node: { id: `envoy-${i}`, cluster: 'edge', userAgentName: 'envoy' }, typeUrl: TypeUrl.Cluster, resourceNamesSubscribe: ['*'] });
      // Each node also follows the endpoints of ten services, as a sidecar does for its upstreams.
      c.send({ typeUrl: TypeUrl.ClusterLoadAssignment, resourceNamesSubscribe: Array.from({ length: 10 }, (_, k) => `svc-${k}`) });
      void (async () => {
        let first = 0;
        for (;;) {
          const r = await c.next();
          c.send({ typeUrl: r.typeUrl, responseNonce: r.nonce });
          // Synced once both the CDS and the EDS answer arrived.
          if (++first === 2) synced++;
        }
      })();
      clients.push(c);
      if (i % 100 === 99) await sleep(50);
    }
    while (synced < N) await sleep(100);
    console.log(`setup: ${S} services, ${N} Delta ADS streams synced in ${Date.now() - t0} ms`);
    const changes: [string, string, unknown][] = [
      ['instance', '/v1/catalog/register', (i: number) => ({ Node: 'node-1', Address: '10.0.0.1', Service: { Service: 'svc-7', ID: `svc-7-x${i}`, Port: 20_000 + i } })] as never,
      ['config entry', '/v1/config', (i: number) => ({ Kind: 'service-defaults', Name: 'svc-9', Protocol: i % 2 ? 'http2' : 'http' })] as never,
    ];
    for (const [what, path, body] of changes) {
      const make = body as (i: number) => unknown;
      const dry: number[] = [];
      const compute: number[] = [];
      const real: number[] = [];
      let affected = 0;
      // Dry runs first, then the real writes: a real write's push to N in-process clients would share this loop with the next dry run.
      for (let i = 0; i < RUNS; i++) {
        const t = performance.now();
        const res = await fetch(`${h.hub.httpUrl}${path}?dry-run=true`, { method: 'PUT', body: JSON.stringify(make(i)) });
        const answer = (await res.json()) as { nodes: unknown[]; ms: number };
        dry.push(performance.now() - t);
        compute.push(answer.ms);
        affected = answer.nodes.length;
        await sleep(200);
      }
      for (let i = 0; i < RUNS; i++) {
        const t = performance.now();
        await (await fetch(`${h.hub.httpUrl}${path}`, { method: 'PUT', body: JSON.stringify(make(i)) })).text();
        real.push(performance.now() - t);
        await sleep(500);
      }
      console.log(
        `dry run, one ${what} change, ${S} services, ${N} connected nodes (${affected} affected): HTTP p50 ${pct(dry, 50).toFixed(1)} ms, p99 ${pct(dry, 99).toFixed(1)} ms, max ${Math.max(...dry).toFixed(1)} ms (target ≤ 200 ms), of which the prediction p50 ${pct(compute, 50).toFixed(1)} ms, p99 ${pct(compute, 99).toFixed(1)} ms; the real write's acknowledgement in the same run: p50 ${pct(real, 50).toFixed(1)} ms, p99 ${pct(real, 99).toFixed(1)} ms`,
      );
    }
    clients.forEach((c) => c.close());
  } finally {
    await h.close();
  }
}

async function main(): Promise<void> {
  const delta = historyCost('delta');
  console.log(`history, ${HN} nodes × 1,000 Delta pushes (one CLA each), ACKed: ${(delta / 1024).toFixed(1)} KiB per node per 1,000 pushes`);
  const sotw = historyCost('sotw');
  console.log(`history, ${HN} nodes × 1,000 SotW CDS pushes (a 100-cluster set each), ACKed: ${(sotw / 1024).toFixed(1)} KiB per node per 1,000 pushes`);
  await dryRunLatency();
}

void main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
