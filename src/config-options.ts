// The one table of `serve` flags: name, environment variable, default as shown,
// and a line of help. src/config.ts parses from it, `serve --help` prints it,
// and a test holds README.md's Configuration table to it, so the three cannot
// drift apart. Booleans are marked: they take the bare form (`--acl-enabled`)
// as well as `--acl-enabled=false` (and `--acl-enabled false`, since `serve`
// takes no positional arguments).

export interface OptionSpec {
  env: string;
  /** The default as README and --help show it. */
  def: string;
  /** def is a value the flag accepts (shown in code style); otherwise it is words ("none", "the host name"). */
  literal: boolean;
  bool?: true;
  help: string;
}

const o = (env: string, def: string, help: string, extra: { literal?: boolean; bool?: true } = {}): OptionSpec => ({
  env,
  def,
  literal: extra.literal ?? true,
  help,
  ...(extra.bool ? { bool: true as const } : {}),
});
const none = (env: string, help: string): OptionSpec => o(env, 'none', help, { literal: false });
const flag = (env: string, def: 'true' | 'false', help: string): OptionSpec => o(env, def, help, { bool: true });

export const OPTIONS = {
  bind: o('XDSHUB_BIND', '127.0.0.1', 'address the HTTP and gRPC servers listen on'),
  'http-port': o('XDSHUB_HTTP_PORT', '8500', 'HTTP API port (0 = any free port)'),
  'grpc-port': o('XDSHUB_GRPC_PORT', '8502', 'gRPC port: Subscribe and xDS (0 = any free port)'),
  'data-dir': o('XDSHUB_DATA_DIR', './data', 'where the SQLite log and history.db live (created 0700, files 0600)'),
  'data-dir-insecure-ok': flag(
    'XDSHUB_DATA_DIR_INSECURE_OK',
    'false',
    'start on a data dir that group or others may read or enter',
  ),
  store: o(
    'XDSHUB_STORE',
    'sqlite',
    'sqlite, memory, redis://host:port or redis-sentinel://host:port[,host:port]/master',
  ),
  'redis-wait-replicas': o(
    'XDSHUB_REDIS_WAIT_REPLICAS',
    '0',
    'acknowledge an append once this many Redis replicas hold it',
  ),
  'redis-password': none('XDSHUB_REDIS_PASSWORD', 'password for Redis (or in the URL); never shown back'),
  'redis-sentinel-password': none('XDSHUB_REDIS_SENTINEL_PASSWORD', 'password for the sentinels; never shown back'),
  'redis-tls-ca': o('XDSHUB_REDIS_TLS_CA', 'system CAs', "PEM file of the CA that signed Redis's certificate", {
    literal: false,
  }),
  'log-level': o('XDSHUB_LOG_LEVEL', 'info', 'fatal, error, warn, info, debug, trace or silent (JSON lines on stderr)'),
  'node-name': o('XDSHUB_NODE_NAME', 'the host name', "the hub's own node: agent endpoints register on it", {
    literal: false,
  }),
  datacenter: o('XDSHUB_DATACENTER', 'dc1', 'the one datacenter this hub serves'),
  upstream: none('XDSHUB_UPSTREAM', 'fan-out hub of the hub at this gRPC host:port'),
  'upstream-http': none('XDSHUB_UPSTREAM_HTTP', "fan-out hub: the upstream's HTTP API that writes are forwarded to"),
  'compact-keep-tail': o('XDSHUB_COMPACT_KEEP_TAIL', '10000', 'entries kept behind a snapshot for resuming readers'),
  'compact-every': o(
    'XDSHUB_COMPACT_EVERY',
    '50000',
    'snapshot and compact the log after this many entries (0 = never)',
  ),
  'snapshot-cache-ttl': o('XDSHUB_SNAPSHOT_CACHE_TTL', '10s', 'Subscribe: how long a built snapshot is reused'),
  'resource-ttl': o('XDSHUB_RESOURCE_TTL', '0', 'xDS: resource TTL for clients that support it (0 = none)'),
  'resource-ttl-types': o(
    'XDSHUB_RESOURCE_TTL_TYPES',
    'all',
    'xDS: which types carry the TTL, e.g. clusters,endpoints',
    { literal: false },
  ),
  'heartbeat-interval': o('XDSHUB_HEARTBEAT_INTERVAL', '0', "xDS: heartbeat for TTL'd resources (0 = TTL/2)"),
  'xds-debounce': o('XDSHUB_XDS_DEBOUNCE', '50ms', 'xDS: coalescing window, at most one push per window'),
  'xds-max-delay': o('XDSHUB_XDS_MAX_DELAY', '1s', 'xDS: the longest a change may wait for coalescing'),
  'xds-max-streams': o('XDSHUB_XDS_MAX_STREAMS', '100000', 'xDS: open streams at most (0 = no limit)'),
  'memory-trim': flag('XDSHUB_MEMORY_TRIM', 'true', 'give freed memory back to the OS after xDS bursts (glibc)'),
  'gc-heap-growth': o(
    'XDSHUB_GC_HEAP_GROWTH',
    '100',
    "percent V8's old generation may grow past the live heap before a full GC (0 = V8's own choice)",
  ),
  'check-allow-cidr': none(
    'XDSHUB_CHECK_ALLOW_CIDR',
    'networks (CIDRs, comma-separated) checks may probe besides loopback',
  ),
  'shutdown-timeout': o('XDSHUB_SHUTDOWN_TIMEOUT', '10s', 'the longest an ordered shutdown may take (then exit 1)'),
  'sidecar-min-port': o('XDSHUB_SIDECAR_MIN_PORT', '21000', 'mesh: lowest port a sidecar registration takes'),
  'sidecar-max-port': o('XDSHUB_SIDECAR_MAX_PORT', '21255', 'mesh: highest port a sidecar registration takes'),
  'xds-history': o('XDSHUB_XDS_HISTORY', '1000', 'xDS responses (with ACK/NACK) kept per node (0 = none)'),
  'xds-history-persist': o('XDSHUB_XDS_HISTORY_PERSIST', 'auto', 'keep the history beside the log: auto, on or off'),
  'envoy-validate-binary': none(
    'XDSHUB_ENVOY_VALIDATE_BINARY',
    'an Envoy binary: dry runs and rollouts check changed resources with its --mode validate',
  ),
  'acl-enabled': flag('XDSHUB_ACL_ENABLED', 'false', "Consul's ACLs on every API"),
  'acl-default-policy': o('XDSHUB_ACL_DEFAULT_POLICY', 'allow', 'what no rule covers: allow or deny'),
  'acl-initial-management-token': none(
    'XDSHUB_ACL_INITIAL_MANAGEMENT_TOKEN',
    'a secret that is a management token from the start',
  ),
  'tls-cert': none('XDSHUB_TLS_CERT', 'PEM certificate: TLS on HTTP and gRPC'),
  'tls-key': none('XDSHUB_TLS_KEY', 'PEM private key of --tls-cert'),
  'tls-ca': none('XDSHUB_TLS_CA', 'PEM CA: clients need a certificate it signed (mutual TLS)'),
  'tls-client-cert-token': flag(
    'XDSHUB_TLS_CLIENT_CERT_TOKEN',
    'false',
    'HTTP: a certificate acts as the token its CN names, if allowed',
  ),
  'tls-client-cert-token-allow': none(
    'XDSHUB_TLS_CLIENT_CERT_TOKEN_ALLOW',
    'AccessorIDs (comma-separated) a certificate may act as',
  ),
  'tls-reload-interval': o('XDSHUB_TLS_RELOAD_INTERVAL', '10s', 'how often certificate files are checked for changes'),
  'http-max-body': o('XDSHUB_HTTP_MAX_BODY', '4MiB', 'largest HTTP request body (413)'),
  'grpc-max-message': o('XDSHUB_GRPC_MAX_MESSAGE', '4MiB', 'largest gRPC message received (RESOURCE_EXHAUSTED)'),
  'grpc-max-streams-per-connection': o(
    'XDSHUB_GRPC_MAX_STREAMS_PER_CONNECTION',
    '2048',
    'Subscribe and xDS streams per connection',
  ),
  'subscribe-max-streams-per-token': o(
    'XDSHUB_SUBSCRIBE_MAX_STREAMS_PER_TOKEN',
    '10000',
    'Subscribe streams per token',
  ),
  'xds-max-resource-names': o('XDSHUB_XDS_MAX_RESOURCE_NAMES', '10000', 'resource names in one xDS request'),
  'txn-max-ops': o('XDSHUB_TXN_MAX_OPS', '128', 'operations in one /v1/txn (413)'),
  'http-max-blocking-per-client': o(
    'XDSHUB_HTTP_MAX_BLOCKING_PER_CLIENT',
    '1024',
    'blocking queries held at once per client address',
  ),
  'http-rate-limit': o('XDSHUB_HTTP_RATE_LIMIT', '0', 'HTTP requests per second per client address (0 = off)'),
  'ca-leaf-cert-ttl': o(
    'XDSHUB_CA_LEAF_CERT_TTL',
    '72h',
    'mesh: leaf certificate lifetime the built-in CA starts with',
  ),
  'default-intention': o(
    'XDSHUB_DEFAULT_INTENTION',
    'allow',
    'mesh: what sidecars do with traffic no intention matches',
  ),
} as const satisfies Record<string, OptionSpec>;

export type OptionName = keyof typeof OPTIONS;

const BOOL_WORDS = new Set(['true', 'false', '1', '0', 'on', 'off', 'yes', 'no']);

/**
 * Rewrites each boolean flag to `--name=value`: bare (`--acl-enabled`) is true,
 * and a following true/false word is its value. Everything else is left as it is
 * for parseArgs, which then sees only `--name value` pairs of string flags.
 */
export function normalizeBoolFlags(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const name = arg.startsWith('--') && !arg.includes('=') ? arg.slice(2) : undefined;
    const spec = name !== undefined ? (OPTIONS as Record<string, OptionSpec>)[name] : undefined;
    if (!spec?.bool) {
      out.push(arg);
      continue;
    }
    const next = argv[i + 1];
    if (next !== undefined && BOOL_WORDS.has(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else {
      out.push(`${arg}=true`);
    }
  }
  return out;
}

/** `serve --help`: every flag with its variable, default and meaning. */
export function optionsHelp(): string {
  const lines = ['usage: xdshub serve [flags]', ''];
  lines.push('Every flag can also come from its environment variable; a flag wins.', '');
  for (const [name, spec] of Object.entries(OPTIONS) as [OptionName, OptionSpec][]) {
    const form = spec.bool ? `--${name}[=true|false]` : `--${name} <value>`;
    lines.push(`  ${form}`, `      ${spec.help} (default: ${spec.def}; env ${spec.env})`);
  }
  return `${lines.join('\n')}\n`;
}
