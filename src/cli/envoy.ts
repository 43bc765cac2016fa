// `xdshub envoy bootstrap`: prints an Envoy bootstrap (JSON) that connects an
// Envoy to the hub, as `consul connect envoy -bootstrap` does for Consul.
//   xdshub envoy bootstrap --node-id edge-1 --cluster edge > envoy.json && envoy -c envoy.json
import { parseArgs } from 'node:util';
import { parseDurationMs } from '../config';
import { invalid, isHubError } from '../errors';
import { BOOTSTRAP_DEFAULTS, type EnvoyBootstrapOptions, type EnvoyTransport, envoyBootstrap } from './envoy-bootstrap';
import { lookupProxy } from './sidecar-lookup';

const USAGE = `usage: xdshub envoy bootstrap (--node-id ID | --proxy-id ID | --sidecar-for SERVICE_ID)
                              [--cluster NAME] [--token TOKEN]
                              [--transport delta|sotw|rest] [--ads=true|false]
                              [--admin-bind 127.0.0.1:19000]
                              [--grpc-addr 127.0.0.1:8502] [--http-addr 127.0.0.1:8500]
                              [--refresh-delay 1s] [--datacenter dc1]

  Prints an Envoy bootstrap on stdout. --cluster (default: the node id) names
  the ingress-gateway config entry whose listeners the Envoy gets. --transport: delta (Delta ADS,
  the default), sotw (state-of-the-world ADS) or rest (REST polling of
  --http-addr every --refresh-delay). --ads=false gives one gRPC stream per
  resource type instead of ADS (REST always polls per type).
  --proxy-id ID (a connect-proxy's service ID) or --sidecar-for SERVICE_ID
  (the service it fronts) print a sidecar's bootstrap, as consul connect envoy
  -proxy-id / -sidecar-for: the proxy is looked up on --http-addr (with
  --token when ACLs are on), node.id is its ID and node.cluster its name;
  sidecars need ADS (their certificates come over it).
  Env: XDSHUB_GRPC_ADDR, XDSHUB_HTTP_ADDR, XDSHUB_HTTP_TOKEN.`;

function boolFlag(text: string | undefined, flag: string): boolean | undefined {
  if (text === undefined) return undefined;
  if (text === 'true') return true;
  if (text === 'false') return false;
  throw invalid(flag, `expected true or false, got "${text}"`);
}

/** `--ads` alone (last, or before another flag) means `--ads=true`; `--ads WORD` is `--ads=WORD`, checked as before. */
function bareAds(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] !== '--ads') {
      out.push(argv[i]!);
      continue;
    }
    const next = argv[i + 1];
    const given = next !== undefined && !next.startsWith('-');
    if (given) i++;
    out.push(`--ads=${given ? next : 'true'}`);
  }
  return out;
}

export function parseBootstrapArgs(argv: string[], env: Record<string, string | undefined>) {
  const { values } = parseArgs({
    args: bareAds(argv),
    strict: true,
    options: {
      'node-id': { type: 'string' },
      cluster: { type: 'string' },
      transport: { type: 'string' },
      ads: { type: 'string' },
      'admin-bind': { type: 'string' },
      'grpc-addr': { type: 'string' },
      'http-addr': { type: 'string' },
      'refresh-delay': { type: 'string' },
      datacenter: { type: 'string' },
      'proxy-id': { type: 'string' },
      'sidecar-for': { type: 'string' },
      token: { type: 'string' },
    },
  });
  const transport = values.transport ?? BOOTSTRAP_DEFAULTS.transport;
  if (transport !== 'delta' && transport !== 'sotw' && transport !== 'rest')
    throw invalid('transport', `expected delta, sotw or rest, got "${transport}"`);
  const sidecar = values['proxy-id'] !== undefined || values['sidecar-for'] !== undefined;
  if (sidecar) {
    const given = ['node-id', 'proxy-id', 'sidecar-for'].filter(
      (f) => (values as Record<string, unknown>)[f] !== undefined,
    );
    if (given.length > 1)
      throw invalid(
        given[1]!,
        `give one of --node-id, --proxy-id and --sidecar-for, got ${given.map((f) => `--${f}`).join(' and ')}`,
      );
    if (transport === 'rest' || values.ads === 'false')
      throw invalid(
        transport === 'rest' ? 'transport' : 'ads',
        'a sidecar needs ADS (its certificates come over it by SDS)',
      );
    for (const f of ['proxy-id', 'sidecar-for'] as const) if (values[f] === '') throw invalid(f, 'must not be empty');
  } else if (values['node-id'] === undefined || values['node-id'] === '')
    throw invalid('node-id', 'required (or --proxy-id / --sidecar-for)');
  const token = values.token ?? env.XDSHUB_HTTP_TOKEN;
  return {
    ...(sidecar
      ? {
          proxy: {
            ...(values['proxy-id'] !== undefined
              ? { proxyId: values['proxy-id'] }
              : { sidecarFor: values['sidecar-for']! }),
            ...(token ? { token } : {}),
          },
        }
      : {}),
    nodeId: values['node-id'] ?? values['proxy-id'] ?? '',
    // Envoy requires node.cluster; like Consul, default it to the node's own name (a proxy's: its service name, looked up).
    cluster: values.cluster ?? values['node-id'] ?? '',
    transport: transport as EnvoyTransport,
    ads: boolFlag(values.ads, 'ads') ?? transport !== 'rest',
    adminBind: values['admin-bind'] ?? BOOTSTRAP_DEFAULTS.adminBind,
    grpcAddr: values['grpc-addr'] ?? env.XDSHUB_GRPC_ADDR ?? BOOTSTRAP_DEFAULTS.grpcAddr,
    httpAddr: values['http-addr'] ?? env.XDSHUB_HTTP_ADDR ?? BOOTSTRAP_DEFAULTS.httpAddr,
    refreshDelayMs:
      values['refresh-delay'] === undefined
        ? BOOTSTRAP_DEFAULTS.refreshDelayMs
        : parseDurationMs(values['refresh-delay'], 'refresh-delay'),
    datacenter: values.datacenter ?? BOOTSTRAP_DEFAULTS.datacenter,
  };
}

export async function run(argv: string[], env: Record<string, string | undefined>): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === '--help' || sub === '-h' || rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (sub !== 'bootstrap') {
    process.stderr.write(
      `xdshub envoy: ${sub === undefined ? 'missing subcommand' : `unknown subcommand "${sub}"`}\n${USAGE}\n`,
    );
    return 2;
  }
  let options: ReturnType<typeof parseBootstrapArgs>;
  try {
    options = parseBootstrapArgs(rest, env);
  } catch (err) {
    if (isHubError(err) || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`xdshub envoy bootstrap: ${(err as Error).message}\n`);
      return 2;
    }
    throw err;
  }
  const { proxy, ...fields } = options;
  let bootstrapOptions: EnvoyBootstrapOptions = fields;
  if (proxy) {
    try {
      const found = await lookupProxy({ httpAddr: fields.httpAddr, ...proxy });
      bootstrapOptions = { ...fields, nodeId: found.id, cluster: fields.cluster || found.service };
    } catch (err) {
      if (!isHubError(err)) throw err;
      process.stderr.write(`xdshub envoy bootstrap: ${err.message}\n`);
      return 1;
    }
  }
  try {
    const bootstrap = envoyBootstrap(bootstrapOptions);
    process.stdout.write(`${JSON.stringify(bootstrap, null, 2)}\n`);
    return 0;
  } catch (err) {
    if (isHubError(err) || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`xdshub envoy bootstrap: ${(err as Error).message}\n`);
      return 2;
    }
    throw err;
  }
}
