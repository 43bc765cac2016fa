// `xdshub proxy-config NODE TYPE`: the resources of one type the hub serves a
// node now (GET /v1/xds/config/:node) or was due at a log index (`--at`,
// rebuilt from the log). Secrets are shown by name and version only: the hub
// never sends their content to this view, and this command drops anything but
// the name and type from a secret in case a hub did.
import * as cli from './http-client';

const USAGE = `usage: xdshub proxy-config NODE clusters|listeners|routes|endpoints|secrets
                           [--at INDEX] [--cluster NAME] [-o table|json|yaml]
  what NODE is served now, or was due at log INDEX (--at; secrets are not rebuilt at an index)
  --cluster NAME   for a node neither connected nor in the history: what a node of that cluster gets
${cli.COMMON_FLAGS_USAGE}`;

/** Resources as proto3 JSON: read field by field for the summary. */
// biome-ignore lint/suspicious/noExplicitAny: proto3 JSON of five message types
type Json = any;

const TYPES = ['clusters', 'listeners', 'routes', 'endpoints', 'secrets'] as const;
type Type = (typeof TYPES)[number];

interface ConfigAnswer {
  node: { id: string; cluster: string };
  connected?: boolean;
  index?: string;
  resources: Record<string, Record<string, { version: string; resource: Record<string, Json> }>>;
}

/** A line about a resource, for the table. */
function summary(type: Type, r: Record<string, Json>): string {
  switch (type) {
    case 'clusters':
      return [
        r['type'] ?? (r['clusterType'] ? 'CUSTOM' : 'EDS'),
        r['connectTimeout'] ? `timeout ${r['connectTimeout']}` : '',
      ]
        .filter(Boolean)
        .join(', ');
    case 'endpoints': {
      const eps = (r['endpoints'] ?? []).flatMap((l: Json) => l.lbEndpoints ?? []);
      return (
        eps
          .map((e: Json) => {
            const a = e.endpoint?.address?.socketAddress;
            const health = e.healthStatus && e.healthStatus !== 'HEALTHY' ? ` (${e.healthStatus})` : '';
            return a ? `${a.address}:${a.portValue}${health}` : '?';
          })
          .join(', ') || '(none)'
      );
    }
    case 'listeners': {
      const a = r['address']?.socketAddress;
      return a ? `${a.address}:${a.portValue}` : r['apiListener'] ? 'api listener' : '';
    }
    case 'routes':
      return (r['virtualHosts'] ?? []).map((v: Json) => `${v.name} (${(v.routes ?? []).length} routes)`).join(', ');
    case 'secrets':
      return '(content not shown)';
  }
}

/** A secret reduced to what may be shown: its type and name. */
function redact(resources: ConfigAnswer['resources'][string]): ConfigAnswer['resources'][string] {
  return Object.fromEntries(
    Object.entries(resources).map(([n, x]) => [
      n,
      { version: x.version, resource: { '@type': x.resource['@type'], name: x.resource['name'] ?? n } },
    ]),
  );
}

function parse(positionals: string[], at: string | undefined): { node: string; type: Type } {
  if (positionals.length !== 2) throw new cli.UsageError('expected NODE and a type');
  const [node, type] = positionals as [string, string];
  if (!(TYPES as readonly string[]).includes(type))
    throw new cli.UsageError(`type: expected one of ${TYPES.join(', ')}, got "${type}"`);
  if (at !== undefined && !/^\d+$/.test(at)) throw new cli.UsageError(`--at: expected a log index, got "${at}"`);
  if (at !== undefined && type === 'secrets')
    throw new cli.UsageError(
      '--at: secrets are not rebuilt at an index (the log keeps no key material); ' +
        'leave --at out for what the node is served now',
    );
  return { node, type: type as Type };
}

export function run(argv: string[], env: Record<string, string | undefined>): Promise<number> {
  return cli.runCommand('proxy-config', USAGE, async () => {
    const { values, positionals, hub } = cli.parseCommand(argv, env, {
      at: { type: 'string' },
      cluster: { type: 'string' },
      output: { type: 'string', short: 'o' },
    });
    if (cli.helpAsked(values, USAGE)) return cli.EXIT.ok;
    const format = cli.outputFormat(values['output'] as string | undefined);
    const at = values['at'] as string | undefined;
    const { node, type } = parse(positionals, at);
    const query = new URLSearchParams({
      ...(at === undefined ? {} : { index: at }),
      ...(values['cluster'] ? { cluster: String(values['cluster']) } : {}),
    });
    const answer = await hub.request<ConfigAnswer>(
      'GET',
      `/v1/xds/config/${encodeURIComponent(node)}${query.size ? `?${query}` : ''}`,
    );
    const raw = answer.resources[type] ?? {};
    const resources = type === 'secrets' ? redact(raw) : raw;
    const data = {
      node: answer.node,
      ...(at === undefined ? { connected: answer.connected ?? false } : { index: answer.index ?? at }),
      type,
      resources,
    };
    process.stdout.write(
      cli.render(format, data, () => {
        const rows = Object.entries(resources).map(([name, r]) => [name, r.version, summary(type, r.resource)]);
        const when =
          at !== undefined ? ` at index ${at}` : answer.connected ? '' : ' (not connected: what it would be offered)';
        const head = `${type} of ${answer.node.id}${when}\n`;
        return rows.length ? head + cli.table(['NAME', 'VERSION', 'SUMMARY'], rows) : `${head}(none)\n`;
      }),
    );
    return cli.EXIT.ok;
  });
}
