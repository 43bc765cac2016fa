// `xdshub diff FILE`: the dry run of a change given as a file — the request it
// would be, {"Method", "Path", "Body"} — against a running hub: which resources
// each node would get added, changed (field by field) or removed. Nothing is written.
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';

const USAGE = `usage: xdshub diff [--hub http://127.0.0.1:8500] [--json] FILE|-
  FILE holds the change as the request it would be, e.g.
  {"Method": "PUT", "Path": "/v1/config", "Body": {"Kind": "service-defaults", "Name": "web", "Protocol": "http2"}}`;

interface Prediction {
  index: string;
  ok: boolean;
  changes: boolean;
  error?: { message: string };
  nodes: { node: string; connected: boolean; added: Ref[]; removed: Ref[]; changed: (Ref & { fields: { path: string; before?: unknown; after?: unknown }[] })[] }[];
  unaffected: string[];
}
type Ref = { type: string; name: string };

const show = (v: unknown) => (v === undefined ? '(none)' : JSON.stringify(v));

export function formatPrediction(p: Prediction): string {
  const lines = [
    `at index ${p.index}: ${p.ok ? (p.changes ? 'would apply' : 'would change nothing') : `would be refused: ${p.error?.message ?? ''}`}; ${p.nodes.length} node(s) affected, ${p.unaffected.length} unaffected`,
  ];
  for (const n of p.nodes) {
    lines.push(`${n.node} (${n.connected ? 'connected' : 'offline'})`);
    for (const a of n.added) lines.push(`  + ${a.type} ${a.name}`);
    for (const c of n.changed) {
      lines.push(`  ~ ${c.type} ${c.name}`);
      for (const f of c.fields) lines.push(`      ${f.path}: ${show(f.before)} → ${show(f.after)}`);
    }
    for (const r of n.removed) lines.push(`  - ${r.type} ${r.name}`);
  }
  return `${lines.join('\n')}\n`;
}

export async function run(argv: string[], env: Record<string, string | undefined>): Promise<number> {
  let values: { hub?: string; json?: boolean; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args: argv, options: { hub: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean' } }, allowPositionals: true }));
  } catch (err) {
    process.stderr.write(`xdshub diff: ${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (positionals.length !== 1) {
    process.stderr.write(`xdshub diff: expected one FILE (or - for stdin)\n${USAGE}\n`);
    return 2;
  }
  const hub = values.hub ?? env['XDSHUB_HTTP_ADDR'] ?? 'http://127.0.0.1:8500';
  const text = positionals[0] === '-' ? await readStdin() : await readFile(positionals[0]!, 'utf8');
  const res = await fetch(`${hub.replace(/\/$/, '')}/v1/ops/dry-run`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
  const body = await res.text();
  if (!res.ok) {
    process.stderr.write(`xdshub diff: ${res.status} ${body}\n`);
    return 1;
  }
  const prediction = JSON.parse(body) as Prediction;
  process.stdout.write(values.json ? `${JSON.stringify(prediction, null, 2)}\n` : formatPrediction(prediction));
  return prediction.ok ? 0 : 1;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
