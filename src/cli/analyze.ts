// `xdshub analyze [FILE…]`: the checks of src/ops/analyze over the live state
// (read over HTTP with the caller's token, as the consul CLI does) or over
// files before they are written, or files on top of the live state (--live).
// Exit 0 when there is no error (warnings are printed), 1 on an error finding
// or a failed read, 2 on a usage error. docs/analyze.md lists every code.
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { type AnalyzeReport, analyze } from '../ops/analyze/analyze';
import { DocumentError, type Documents, merge, parseDocuments } from '../ops/analyze/documents';
import type { Json } from '../ops/analyze/fields';

const USAGE = `usage: xdshub analyze [-http-addr ADDR] [-token TOKEN] [--live] [-o text|json] [FILE…]
  no FILE: analyze the live state of the hub at -http-addr (CONSUL_HTTP_ADDR, default 127.0.0.1:8500)
  FILE…:   analyze config entries and catalog registrations (JSON or HCL) as they would be written
  --live:  analyze the files on top of the live state (a file's entry replaces the live one)`;

/** The kinds whose entries the checks read. */
const KINDS = [
  'service-defaults',
  'service-resolver',
  'service-router',
  'service-splitter',
  'service-intentions',
  'ingress-gateway',
  'http-route',
];

type Env = Record<string, string | undefined>;

const NO_TOKEN =
  'xdshub analyze: no token (-token, CONSUL_HTTP_TOKEN): with ACLs on, ' +
  'this is what the anonymous token may read\n';

/** Go-style `-flag` spellings as `--flag` (the consul CLI takes both). */
export function consulFlags(argv: readonly string[]): string[] {
  return argv.map((a) => (/^-[a-z][a-z-]+(=.*)?$/.test(a) ? `-${a}` : a));
}

/** CONSUL_HTTP_ADDR may be host:port without a scheme. */
export function httpBase(addr: string): string {
  const base = /^https?:\/\//.test(addr) ? addr : `http://${addr}`;
  return base.replace(/\/$/, '');
}

async function getJson(base: string, path: string, token: string | undefined): Promise<unknown> {
  const res = await fetch(`${base}${path}`, { headers: token ? { 'X-Consul-Token': token } : {} });
  const body = await res.text();
  if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${body.trim()}`);
  // Half the state would make every reference to the hidden half look broken.
  if (res.headers.get('x-consul-results-filtered-by-acls') === 'true') {
    throw new Error(
      `GET ${path}: the token may not read everything (X-Consul-Results-Filtered-By-ACLs); ` +
        'analyze needs service:read and config reads on all services',
    );
  }
  return JSON.parse(body);
}

export interface LiveState {
  services: string[];
  entries: Json[];
}

export async function liveState(base: string, token: string | undefined): Promise<LiveState> {
  const services = Object.keys((await getJson(base, '/v1/catalog/services', token)) as Record<string, unknown>);
  const lists = await Promise.all(KINDS.map((k) => getJson(base, `/v1/config/${k}`, token) as Promise<Json[]>));
  return { services, entries: lists.flat() };
}

export async function readDocuments(files: readonly string[]): Promise<Documents> {
  return merge(await Promise.all(files.map(async (f) => parseDocuments(f, await readFile(f, 'utf8')))));
}

export function formatReport(report: AnalyzeReport, scope: string): string {
  if (report.findings.length === 0) return `no issues found in ${scope}\n`;
  const lines = report.findings.map((f) => {
    const where = f.field ? `${f.entry} ${f.field}` : f.entry;
    return `${f.severity === 'error' ? 'Error' : 'Warning'} [${f.code}] ${where}: ${f.message}\n  hint: ${f.hint}`;
  });
  lines.push(`${report.errors} error(s), ${report.warnings} warning(s) in ${scope}`);
  return `${lines.join('\n')}\n`;
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: consulFlags(argv),
    options: {
      'http-addr': { type: 'string' },
      token: { type: 'string' },
      live: { type: 'boolean' },
      output: { type: 'string', short: 'o' },
      datacenter: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
  });
}

export async function main(argv: string[], env: Env = process.env): Promise<number> {
  let args: ReturnType<typeof parse>;
  try {
    args = parse(argv);
    if (!['text', 'json', undefined].includes(args.values.output)) throw new Error('-o must be text or json');
  } catch (err) {
    process.stderr.write(`xdshub analyze: ${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const { values, positionals: files } = args;
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const base = httpBase(values['http-addr'] ?? env['CONSUL_HTTP_ADDR'] ?? '127.0.0.1:8500');
  const token = values.token ?? env['CONSUL_HTTP_TOKEN'];
  let docs: Documents;
  let live: LiveState = { services: [], entries: [] };
  try {
    docs = files.length > 0 ? await readDocuments(files) : { entries: [], registrations: [] };
  } catch (err) {
    const what = err instanceof DocumentError ? '' : 'reading ';
    process.stderr.write(`xdshub analyze: ${what}${(err as Error).message}\n`);
    return 1;
  }
  try {
    if (files.length === 0 || values.live) {
      // Consul marks filtered answers only for a given token: the anonymous view hides without saying so.
      if (!token) process.stderr.write(NO_TOKEN);
      live = await liveState(base, token);
    }
  } catch (err) {
    process.stderr.write(`xdshub analyze: reading ${base}: ${(err as Error).message}\n`);
    return 1;
  }
  const key = (e: Json) => `${String(e['Kind'])}/${String(e['Name'])}`;
  const replaced = new Set(docs.entries.map(key));
  const entries = [...live.entries.filter((e) => !replaced.has(key(e))), ...docs.entries];
  const { registrations } = docs;
  const report = analyze({ services: live.services, entries, registrations, datacenter: values.datacenter ?? 'dc1' });
  const scope =
    `${entries.length} config entries, ${live.services.length} live services ` +
    `and ${registrations.length} registrations`;
  process.stdout.write(values.output === 'json' ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report, scope));
  return report.errors > 0 ? 1 : 0;
}
