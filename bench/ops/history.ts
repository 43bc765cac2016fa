// The xDS history recorder's cost on the push path (docs/xds-transport.md,
// "Where a push round's CPU goes"; docs/operator-tools.md, "Costs"): the real
// createHistory over the real SQLite store (a temporary history.db), fed what
// the transport reports for N nodes × P push rounds: each round one response
// per node (one name → version map per round, shared by the fleet, as the
// transport shares it) and each node's ACK.
//
// Three orders, as they happen in a hub whose store writes on its timer
// (`--flush-ms`; the hub's is 200 ms):
//  - before: the ACKs arrive before the store's next write;
//  - within: the ACKs arrive 0.6 write intervals after the pushes (a write may fall between);
//  - after: the ACKs arrive 2.5 write intervals after the pushes (the records are written unanswered first).
// Printed per record: the synchronous sent + answered calls (µs: the push path
// itself), the process's whole CPU time (µs: those calls, the store's writes on
// its timer and the GC), the longest the event loop was held (the sent loop
// itself, or the store's longest write), and the rows in the file at the end (one per fleet push).
//   node --expose-gc --import tsx bench/ops/history.ts [--nodes 1000] [--pushes 20] [--set 1] [--per-node 1000] [--flush-ms 50] [--repeat 3]
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { createHistory } from '../../src/ops/history';
import { createSqliteHistory } from '../../src/ops/history-sqlite';
import { TypeUrl } from '../../src/xds/transport/type-urls';

const { values } = parseArgs({
  options: {
    nodes: { type: 'string', default: '1000' },
    pushes: { type: 'string', default: '20' },
    set: { type: 'string', default: '1' },
    'per-node': { type: 'string', default: '1000' },
    'flush-ms': { type: 'string', default: '50' },
    repeat: { type: 'string', default: '3' },
  },
});
const N = Number(values.nodes);
const P = Number(values.pushes);
const SET = Number(values.set);
const PER_NODE = Number(values['per-node']);
const FLUSH_MS = Number(values['flush-ms']);
const REPEAT = Number(values.repeat);
/** When the ACKs arrive after the pushes, in write intervals. */
const ORDERS = { before: 0, within: 0.6, after: 2.5 } as const;
type Order = keyof typeof ORDERS;
const gc = (globalThis as { gc?: () => void }).gc;
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

interface Figures {
  record: number;
  cpu: number;
  /** The longest the event loop was held (ms): the store's longest write, as a push round would wait for it. */
  stall: number;
  rows: number;
}

async function run(order: Order): Promise<Figures> {
  const dir = mkdtempSync(join(tmpdir(), 'xdshub-history-bench-'));
  const path = join(dir, 'history.db');
  try {
    const persistence = createSqliteHistory({ path, perNode: PER_NODE, flushMs: FLUSH_MS });
    const history = createHistory({ perNode: PER_NODE, hub: 'bench', index: () => 42n, persistence });
    const nodes = Array.from({ length: N }, (_, i) => ({
      id: `envoy-${i}`,
      cluster: 'edge',
      clientFeatures: [],
      userAgent: 'envoy',
    }));
    let recordNs = 0n;
    gc?.();
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const cpu0 = process.cpuUsage();
    for (let p = 0; p < P; p++) {
      const sent = new Map(
        Array.from(
          { length: SET },
          (_, i) => [`svc-${(p + i) % 1000}`, `v${p}-${i}`.padEnd(32, '0')] as [string, string],
        ),
      );
      let t = process.hrtime.bigint();
      for (let i = 0; i < N; i++) {
        history.sent!({
          stream: i + 1,
          node: nodes[i]!,
          typeUrl: TypeUrl.ClusterLoadAssignment,
          nonce: `${p}`,
          version: '',
          resources: sent,
          variant: 'delta',
          at: Date.now(),
        });
      }
      recordNs += process.hrtime.bigint() - t;
      if (ORDERS[order] > 0) await sleep(ORDERS[order] * FLUSH_MS);
      t = process.hrtime.bigint();
      for (let i = 0; i < N; i++) {
        history.answered!({
          stream: i + 1,
          node: nodes[i]!,
          typeUrl: TypeUrl.ClusterLoadAssignment,
          nonce: `${p}`,
          error: undefined,
          at: Date.now(),
        });
      }
      recordNs += process.hrtime.bigint() - t;
      await sleep(2.5 * FLUSH_MS); // the store's timer writes the rest
    }
    const cpu = process.cpuUsage(cpu0);
    delay.disable();
    await history.close();
    const db = new Database(path, { readonly: true });
    const { rows } = db.prepare('SELECT COUNT(*) AS rows FROM batches').get() as { rows: number };
    db.close();
    const records = N * P;
    return {
      record: Number(recordNs) / 1e3 / records,
      cpu: (cpu.user + cpu.system) / records,
      stall: delay.max / 1e6,
      rows,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  console.log(
    `history recorder bench: ${N} nodes × ${P} pushes, ${SET} name(s) per push, --xds-history ${PER_NODE}, store writes every ${FLUSH_MS} ms, best of ${REPEAT}; load average ${load()}`,
  );
  for (const order of Object.keys(ORDERS) as Order[]) {
    const runs: Figures[] = [];
    for (let r = 0; r < REPEAT; r++) runs.push(await run(order));
    const rec = Math.min(...runs.map((f) => f.record));
    const cpu = Math.min(...runs.map((f) => f.cpu));
    const stall = Math.min(...runs.map((f) => f.stall));
    console.log(
      `  ACK ${order.padEnd(6)} the write: sent+answered ${rec.toFixed(2)} µs/record; process CPU ${cpu.toFixed(2)} µs/record; longest event-loop stall ${stall.toFixed(1)} ms; rows in the file ${runs[0]!.rows}`,
    );
  }
  console.log(`load average after ${load()}`);
}

void main();
