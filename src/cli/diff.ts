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
  diffs: { nodes: string[]; added: Ref[]; removed: Ref[]; changed: (Ref & { fields: { path: string; before?: unknown; after?: unknown }[] })[] }[];
  unaffected: string[];
  offline: string[];
}
type Ref = { type: string; name: string };

const show = (v: unknown) => (v === undefined ? '(none)' : JSON.stringify(v));

/** Node ids named per diff before "… and N more" (--json has them all). */
const NAMED = 20;

export function formatPrediction(p: Prediction): string {
  const affected = p.diffs.reduce((n, d) => n + d.nodes.length, 0);
  const verdict = p.ok ? (p.changes ? 'would apply' : 'would change nothing') : `would be refused: ${p.error?.message ?? ''}`;
  const lines = [`at index ${p.index}: ${verdict}; ${affected} node(s) affected${p.diffs.length > 1 ? ` (${p.diffs.length} distinct diffs)` : ''}, ${p.unaffected.length} unaffected`];
  const offline = new Set(p.offline);
  for (const d of p.diffs) {
    const names = d.nodes.slice(0, NAMED).map((n) => (offline.has(n) ? `${n} (offline)` : n));
    const more = d.nodes.length > NAMED ? `, … and ${d.nodes.length - NAMED} more` : '';
    lines.push(`${d.nodes.length} node(s): ${names.join(', ')}${more}`);
    for (const a of d.added) lines.push(`  + ${a.type} ${a.name}`);
    for (const c of d.changed) {
      lines.push(`  ~ ${c.type} ${c.name}`);
      for (const f of c.fields) lines.push(`      ${f.path}: ${show(f.before)} → ${show(f.after)}`);
    }
    for (const r of d.removed) lines.push(`  - ${r.type} ${r.name}`);
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
