// ?filter cost: p50/p99 of GET /v1/health/service/S?filter=… over a
// 10,000-instance service against the same query unfiltered, over real HTTP
// on loopback, interleaved so machine noise hits both alike. Also the first
// (cold) filtered request, which builds the filter's view, and a filter
// answered from the catalog (/v1/catalog/nodes over 10,000 nodes). Target:
// filtered p99 ≤ 1.5× unfiltered p99. Prints figures; asserts nothing.
//   node --import tsx bench/filter.ts [--instances 10000] [--requests 200]
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { startHub } from '../test/helpers/hub';

const { values } = parseArgs({
  options: { instances: { type: 'string', default: '10000' }, requests: { type: 'string', default: '200' } },
});
const N = Number(values.instances);
const R = Number(values.requests);

const FILTERS = [
  ['selective (10% pass)', 'Service.Meta.version == v2'],
  ['tag and node meta (6%)', '"canary" in Service.Tags and Node.Meta.rack matches "^r[0-3]$"'],
  ['broad (90% pass)', 'Checks.Status == passing and Service.Port != 1'],
] as const;

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
}

async function timed(url: string): Promise<{ ms: number; bytes: number; count: number }> {
  const t0 = performance.now();
  const res = await fetch(url);
  const text = await res.text();
  const ms = performance.now() - t0;
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${text}`);
  return { ms, bytes: text.length, count: (JSON.parse(text) as unknown[]).length };
}

async function main(): Promise<void> {
  const hub = await startHub({ nodeName: 'bench-hub' });
  try {
    // One instance per node; 3 ops each (node, service, check), 42 instances per transaction (at most 128 ops).
    const PER_TXN = 42;
    for (let start = 0; start < N; start += PER_TXN) {
      const ops: unknown[] = [];
      for (let i = start; i < Math.min(N, start + PER_TXN); i++) {
        const node = `node-${i}`;
        ops.push({
          Node: {
            Verb: 'set',
            Node: { Node: node, Address: `10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`, Meta: { rack: `r${i % 16}` } },
          },
        });
        ops.push({
          Service: {
            Verb: 'set',
            Node: node,
            Service: {
              ID: `s-${i}`,
              Service: 'S',
              Port: 8000 + (i % 100),
              Tags: i % 4 === 0 ? ['canary'] : ['stable'],
              Meta: { version: i % 10 === 0 ? 'v2' : 'v1' },
            },
          },
        });
        ops.push({
          Check: {
            Verb: 'set',
            Check: {
              Node: node,
              CheckID: `c-${i}`,
              Name: 'alive',
              ServiceID: `s-${i}`,
              Status: i % 10 === 5 ? 'critical' : 'passing',
            },
          },
        });
      }
      const res = await fetch(`${hub.httpUrl}/v1/txn`, { method: 'PUT', body: JSON.stringify(ops) });
      if (res.status !== 200) throw new Error(`txn: ${res.status} ${await res.text()}`);
    }
    const base = `${hub.httpUrl}/v1/health/service/S`;
    console.log(
      `bench/filter: ${N.toLocaleString('en-US')} instances of S, ${R} requests per query, loadavg ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );

    const unfilteredWarm = await timed(base);
    console.log(
      `unfiltered: ${unfilteredWarm.count} instances, ${(unfilteredWarm.bytes / 1e6).toFixed(1)} MB per answer`,
    );
    for (const [name, filter] of FILTERS) {
      const url = `${base}?filter=${encodeURIComponent(filter)}`;
      const cold = await timed(url);
      const plain: number[] = [];
      const filtered: number[] = [];
      for (let i = 0; i < R; i++) {
        // Interleaved: each pair runs under the same machine load.
        plain.push((await timed(base)).ms);
        filtered.push((await timed(url)).ms);
      }
      plain.sort((a, b) => a - b);
      filtered.sort((a, b) => a - b);
      const ratio = pct(filtered, 99) / pct(plain, 99);
      console.log(
        `${name.padEnd(26)} ${String(cold.count).padStart(5)} pass | cold ${cold.ms.toFixed(1)} ms | ` +
          `p50 ${pct(filtered, 50).toFixed(1)} vs ${pct(plain, 50).toFixed(1)} ms | p99 ${pct(filtered, 99).toFixed(1)} vs ${pct(plain, 99).toFixed(1)} ms | ` +
          `p99 ratio ${ratio.toFixed(2)}× (target ≤ 1.5×) ${ratio <= 1.5 ? 'OK' : 'OVER'}`,
      );
    }

    // A filter answered from the catalog (no view): every node, filtered per request.
    const nodes = `${hub.httpUrl}/v1/catalog/nodes`;
    const nodesFiltered = `${nodes}?filter=${encodeURIComponent('Meta.rack == r3')}`;
    const plain: number[] = [];
    const filtered: number[] = [];
    for (let i = 0; i < Math.min(R, 100); i++) {
      plain.push((await timed(nodes)).ms);
      filtered.push((await timed(nodesFiltered)).ms);
    }
    plain.sort((a, b) => a - b);
    filtered.sort((a, b) => a - b);
    console.log(
      `/v1/catalog/nodes (catalog, not a view)  p50 ${pct(filtered, 50).toFixed(1)} vs ${pct(plain, 50).toFixed(1)} ms | p99 ${pct(filtered, 99).toFixed(1)} vs ${pct(plain, 99).toFixed(1)} ms`,
    );
    console.log(
      `loadavg at end ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
  } finally {
    await hub.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
