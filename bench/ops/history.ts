// The xDS history recorder's cost on the push path (docs/xds-transport.md,
// "Where a push round's CPU goes"; docs/operator-tools.md, "Costs"): the real
// createHistory over the real SQLite store (a temporary history.db), fed what
// the transport reports for N nodes × P push rounds: each round one response
// per node (one name → version map per round, shared by the fleet, as the
// transport shares it) and each node's ACK.
//
// Two orders, as they happen in a hub whose store writes every 200 ms:
//  - acked: the ACKs arrive before the store's next write (one row per record);
//  - late: the store writes between the pushes and their ACKs (the record, then its answer).
// Printed per record: the synchronous sent + answered calls (µs), the store's
// write (µs; the 200 ms timer's work, here called once per round), and the
// rows per node in the file at the end.
//   node --expose-gc --import tsx bench/ops/history.ts [--nodes 1000] [--pushes 20] [--set 1] [--per-node 1000] [--repeat 3]
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
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
    repeat: { type: 'string', default: '3' },
  },
});
const N = Number(values.nodes);
const P = Number(values.pushes);
const SET = Number(values.set);
const PER_NODE = Number(values['per-node']);
const REPEAT = Number(values.repeat);
const gc = (globalThis as { gc?: () => void }).gc;

interface Figures {
  record: number;
  write: number;
  rows: number;
}

async function run(order: 'acked' | 'late'): Promise<Figures> {
  const dir = mkdtempSync(join(tmpdir(), 'xdshub-history-bench-'));
  const path = join(dir, 'history.db');
  try {
    // flushMs far beyond the run: the bench calls the store's write itself, once per round.
    const persistence = createSqliteHistory({ path, perNode: PER_NODE, flushMs: 3_600_000 });
    const history = createHistory({ perNode: PER_NODE, hub: 'bench', index: () => 42n, persistence });
    const nodes = Array.from({ length: N }, (_, i) => ({ id: `envoy-${i}`, cluster: 'edge', clientFeatures: [], userAgent: 'envoy' }));
    let recordNs = 0n;
    let writeNs = 0n;
    const write = async () => {
      const t = process.hrtime.bigint();
      await history.flush();
      writeNs += process.hrtime.bigint() - t;
    };
    gc?.();
    for (let p = 0; p < P; p++) {
      const sent = new Map(Array.from({ length: SET }, (_, i) => [`svc-${(p + i) % 1000}`, `v${p}-${i}`.padEnd(32, '0')] as [string, string]));
      const at = Date.now();
      let t = process.hrtime.bigint();
      for (let i = 0; i < N; i++) {
        history.sent!({ stream: i + 1, node: nodes[i]!, typeUrl: TypeUrl.ClusterLoadAssignment, nonce: `${p}`, version: '', resources: sent, variant: 'delta', at });
      }
      recordNs += process.hrtime.bigint() - t;
      if (order === 'late') await write();
      t = process.hrtime.bigint();
      for (let i = 0; i < N; i++) {
        history.answered!({ stream: i + 1, node: nodes[i]!, typeUrl: TypeUrl.ClusterLoadAssignment, nonce: `${p}`, error: undefined, at });
      }
      recordNs += process.hrtime.bigint() - t;
      await write();
    }
    await history.close();
    const db = new Database(path, { readonly: true });
    const { rows } = db.prepare('SELECT COUNT(*) AS rows FROM records').get() as { rows: number };
    db.close();
    const records = N * P;
    return { record: Number(recordNs) / 1e3 / records, write: Number(writeNs) / 1e3 / records, rows: rows / N };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const min = (xs: number[]) => Math.min(...xs);
async function main(): Promise<void> {
console.log(`history recorder bench: ${N} nodes × ${P} pushes, ${SET} name(s) per push, --xds-history ${PER_NODE}, best of ${REPEAT}; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
for (const order of ['acked', 'late'] as const) {
  const runs: Figures[] = [];
  for (let r = 0; r < REPEAT; r++) runs.push(await run(order));
  const rec = min(runs.map((f) => f.record));
  const wr = min(runs.map((f) => f.write));
  console.log(
    `  ${order === 'acked' ? 'ACK before the write' : 'ACK after the write '}: sent+answered ${rec.toFixed(2)} µs/record, store write ${wr.toFixed(2)} µs/record, total ${(rec + wr).toFixed(2)} µs/record; rows per node in the file ${runs[0]!.rows}`,
  );
}
console.log(`load average after ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
}

void main();
