// `xdshub dry-run FILE` (also `xdshub diff`): the dry run of a change given as a
// file — the request it would be, {"Method", "Path", "Body"} — against a running
// hub, as the caller's token: which resources each node would get added, changed
// (field by field) or removed, what it would newly subscribe to (with what that
// holds) or drop, and Envoy's verdict when the hub has an Envoy binary to ask.
// Nothing is written.
import { readFile } from 'node:fs/promises';
import { COMMON_FLAGS_USAGE, EXIT, helpAsked, parseCommand, runCommand, UsageError } from './http-client';

const USAGE = `usage: xdshub dry-run [-http-addr ADDR] [-token TOKEN] [--json] FILE|-     (alias: xdshub diff)
  FILE holds the change as the request it would be, e.g.
  {"Method": "PUT", "Path": "/v1/config", "Body": {"Kind": "service-defaults", "Name": "web", "Protocol": "http2"}}
  exits 1 when the hub would refuse the change (or refuses the dry run), or Envoy rejects it
${COMMON_FLAGS_USAGE}`;

interface Prediction {
  index: string;
  ok: boolean;
  changes: boolean;
  error?: { message: string };
  diffs: {
    nodes: string[];
    added: Ref[];
    removed: Ref[];
    changed: (Ref & { fields: { path: string; before?: unknown; after?: unknown }[] })[];
    subscribes?: (Ref & { resource: unknown })[];
    unsubscribes?: Ref[];
    envoy?: Verdict;
  }[];
  unaffected: string[];
  offline: string[];
}
type Ref = { type: string; name: string };
type Verdict = {
  ok: boolean;
  ms: number;
  rejected?: { type?: string; name?: string; message: string }[];
  error?: string;
};

/** A subscribed resource's content on one line, cut at this many characters (--json has it whole). */
const CONTENT = 160;

function verdictLines(v: Verdict): string[] {
  const took = `${(v.ms / 1000).toFixed(2)} s`;
  if (v.ok) return [`  envoy: accepts (${took})`];
  if (v.error !== undefined) return [`  envoy: could not validate: ${v.error}`];
  return (v.rejected ?? []).map((r) => `  envoy: rejects${r.name ? ` ${r.type} ${r.name}` : ''}: ${r.message}`);
}

const show = (v: unknown) => (v === undefined ? '(none)' : JSON.stringify(v));

/** Node ids named per diff before "… and N more" (--json has them all). */
const NAMED = 20;

export function formatPrediction(p: Prediction): string {
  const affected = p.diffs.reduce((n, d) => n + d.nodes.length, 0);
  const verdict = p.ok
    ? p.changes
      ? 'would apply'
      : 'would change nothing'
    : `would be refused: ${p.error?.message ?? ''}`;
  const distinct = p.diffs.length > 1 ? ` (${p.diffs.length} distinct diffs)` : '';
  const lines = [
    `at index ${p.index}: ${verdict}; ${affected} node(s) affected${distinct}, ${p.unaffected.length} unaffected`,
  ];
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
    for (const sub of d.subscribes ?? []) {
      const text = sub.resource === null ? 'does not exist' : JSON.stringify(sub.resource);
      lines.push(
        `  > subscribes ${sub.type} ${sub.name}: ${text.length > CONTENT ? `${text.slice(0, CONTENT)}…` : text}`,
      );
    }
    for (const u of d.unsubscribes ?? []) lines.push(`  < unsubscribes ${u.type} ${u.name}`);
    if (d.envoy) lines.push(...verdictLines(d.envoy));
  }
  return `${lines.join('\n')}\n`;
}

export function run(argv: string[], env: Record<string, string | undefined>): Promise<number> {
  return runCommand('dry-run', USAGE, async () => {
    const { values, positionals, hub } = parseCommand(argv, env, { json: { type: 'boolean' } });
    if (helpAsked(values, USAGE)) return EXIT.ok;
    if (positionals.length !== 1) throw new UsageError('expected one FILE (or - for stdin)');
    const text = positionals[0] === '-' ? await readStdin() : await readFile(positionals[0]!, 'utf8');
    const prediction = await hub.request<Prediction>('POST', '/v1/ops/dry-run', text);
    process.stdout.write(values['json'] ? `${JSON.stringify(prediction, null, 2)}\n` : formatPrediction(prediction));
    const rejected = prediction.diffs.some((d) => d.envoy && !d.envoy.ok);
    return prediction.ok && !rejected ? EXIT.ok : EXIT.failed;
  });
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
