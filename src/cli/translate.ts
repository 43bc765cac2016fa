// `xdshub translate --node SPEC… FILE…`: offline, the xDS resources each named
// node would receive from a hub holding the registrations and config entries in
// the files (src/ops/translate.ts; docs/analyze.md). Exit 0, 1 when the input is
// refused (as the write would be), 2 on a usage error.

import { parseArgs } from 'node:util';
import pino from 'pino';
import { DocumentError } from '../ops/analyze/documents';
import { type NodeConfig, TranslateError, translateOffline } from '../ops/translate';
import type { ConfigSourceKind, XdsNode } from '../xds/transport/provider';
import { readDocuments } from './analyze';

const USAGE = `usage: xdshub translate --node SPEC… [-o json|text] [--datacenter dc1] FILE…
  SPEC: ID[,cluster=NAME][,client=envoy|grpc][,source=ads|grpc|delta-grpc|rest]
  FILE…: catalog registrations (as PUT /v1/catalog/register takes them) and config entries (as consul
  config write takes them), JSON or HCL; each --node is a client (cluster defaults to ID, client to envoy)`;

/** What grpc-js-xds sends as node.user_agent_name; the provider tells Envoy from gRPC by it. */
const USER_AGENTS = { envoy: 'envoy', grpc: 'grpc-node-js' } as const;
const SOURCES: readonly string[] = ['ads', 'grpc', 'delta-grpc', 'rest'] satisfies ConfigSourceKind[];
const isSource = (v: string): v is ConfigSourceKind => SOURCES.includes(v);

export function parseNodeSpec(spec: string): XdsNode {
  const [id, ...options] = spec.split(',');
  if (!id) throw new Error(`--node ${JSON.stringify(spec)}: needs an ID`);
  const node: XdsNode = { id, cluster: id, userAgent: USER_AGENTS.envoy, clientFeatures: [] };
  for (const option of options) {
    const [key, value = ''] = option.split('=', 2);
    if (key === 'cluster' && value) node.cluster = value;
    else if (key === 'client' && (value === 'envoy' || value === 'grpc')) node.userAgent = USER_AGENTS[value];
    else if (key === 'source' && isSource(value)) node.configSource = value;
    else throw new Error(`--node ${JSON.stringify(spec)}: unknown option ${JSON.stringify(option)}`);
  }
  return node;
}

export function formatText(configs: readonly NodeConfig[]): string {
  const lines: string[] = [];
  for (const c of configs) {
    lines.push(`node ${c.node.id} (cluster ${c.node.cluster}, ${c.node.userAgent})`);
    for (const [type, byName] of Object.entries(c.resources)) {
      for (const [name, r] of Object.entries(byName)) lines.push(`  ${type} ${name} ${r.version}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    options: {
      node: { type: 'string', multiple: true },
      output: { type: 'string', short: 'o' },
      datacenter: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
  });
}

export async function main(argv: string[]): Promise<number> {
  let args: ReturnType<typeof parse>;
  let nodes: XdsNode[];
  try {
    args = parse(argv);
    if (args.values.help) {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    if (!['json', 'text', undefined].includes(args.values.output)) throw new Error('-o must be json or text');
    nodes = (args.values.node ?? []).map(parseNodeSpec);
    if (nodes.length === 0) throw new Error('name at least one --node');
    if (args.positionals.length === 0) throw new Error('name at least one FILE');
  } catch (err) {
    process.stderr.write(`xdshub translate: ${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  try {
    const docs = await readDocuments(args.positionals);
    const logger = pino({ level: 'silent' });
    const { datacenter, output } = args.values;
    const configs = await translateOffline(docs, nodes, { logger, ...(datacenter ? { datacenter } : {}) });
    process.stdout.write(output === 'text' ? formatText(configs) : `${JSON.stringify({ nodes: configs }, null, 2)}\n`);
    return 0;
  } catch (err) {
    const expected = err instanceof TranslateError || err instanceof DocumentError;
    if (!expected && (err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    process.stderr.write(`xdshub translate: ${(err as Error).message}\n`);
    return 1;
  }
}
