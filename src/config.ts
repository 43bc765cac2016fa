// All configuration, parsed once from flags and XDSHUB_* environment variables
// (flags win) and passed down. No other module reads process.env.
import { accessSync, constants, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import { validateCidrs } from './checks/targets';
import { normalizeBoolFlags, OPTIONS, type OptionName } from './config-options';
import { invalid } from './errors';
import { DEFAULT_HEAP_GROWTH, MAX_HEAP_GROWTH } from './heap-growth';
import { DEFAULT_REDIS_CLIENT, type RedisClientConfig } from './log/redis-target';
import { parseStore, type StoreConfig, storeKind } from './log/store-kinds';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export type { StoreConfig } from './log/store-kinds';

export interface Config {
  /** Address the HTTP and gRPC servers bind to. */
  bind: string;
  httpPort: number;
  grpcPort: number;
  dataDir: string;
  /** Start even when group or others may read or enter dataDir (docs/security.md, "Keys at rest"). */
  dataDirInsecureOk: boolean;
  store: StoreConfig;
  /** How a Redis store is reached and when an append counts (--redis-* flags). */
  redis: RedisClientConfig;
  logLevel: LogLevel;
  /** The hub's own node name: agent endpoints register services on it. */
  nodeName: string;
  datacenter: string;
  /** Fan-out tier: materialize from another hub's Subscribe API (host:port) instead of a local log. */
  upstream?: string;
  /** Fan-out tier: the upstream's HTTP API (http[s]://host:port) that HTTP writes are forwarded to. */
  upstreamHttp?: string;
  /** Entries kept behind a snapshot at compaction (resume window). */
  compactKeepTail: number;
  /** Take a snapshot and compact after this many applied entries (0 = never). */
  compactEvery: number;
  /** Subscribe: how long a built snapshot is reused for the same (topic, subject). */
  snapshotCacheTtlMs: number;
  /** xDS: resource TTL for clients that support it (0 = no TTL). */
  resourceTtlMs: number;
  /** xDS: the resource types that carry the TTL (empty = all four); endpoints only is the common choice. */
  resourceTtlTypes: readonly XdsTypeShort[];
  /** xDS: heartbeat interval for TTL'd resources (0 = TTL/2). */
  heartbeatIntervalMs: number;
  /** xDS: coalescing window (at most one push per window; an idle change goes at once), and the most a change may wait. */
  xdsDebounceMs: number;
  xdsMaxDelayMs: number;
  /** xDS: open streams at most; a new one past it is refused with RESOURCE_EXHAUSTED (0 = no limit). */
  xdsMaxStreams: number;
  /** After bursts of large xDS writes, give freed memory back to the OS with glibc's malloc_trim (no-op elsewhere). */
  memoryTrim: boolean;
  /**
   * `serve`: how far (percent) V8's old generation may grow past what the last full GC left live
   * before the next one (src/heap-growth.ts; 0 = V8's own choice). Fewer full GCs, each marking the
   * whole live heap on helper threads, for up to that much more heap between them.
   */
  gcHeapGrowth: number;
  /** Networks (CIDR) HTTP, TCP and gRPC checks may probe besides loopback. */
  checkAllowCidrs: string[];
  /** `serve`: the most an ordered shutdown may take before the process exits anyway (exit code 1). */
  shutdownTimeoutMs: number;
  /** Service mesh (docs/mesh.md): the port range sidecar registrations take a port from, inclusive. */
  sidecarMinPort: number;
  sidecarMaxPort: number;
  /** xDS history: responses (and their ACK/NACK) kept per node (0 = no history). */
  xdsHistory: number;
  /** Keep the xDS history beside the log (SQLite: history.db; Redis: its own keys): auto = when the log is stored (not memory). */
  xdsHistoryPersist: 'auto' | 'on' | 'off';
  /** An Envoy binary: its `--mode validate` checks what a dry run or rollout would push (src/ops/envoy-validate.ts). */
  envoyValidateBinary?: string;
  /** Mesh: the leaf certificate lifetime the built-in CA starts with (later changes: PUT /v1/connect/ca/configuration). */
  caLeafCertTtlMs: number;
  /** Mesh: what sidecars do with traffic no intention matches (a mesh entry's DefaultIntentionPolicy wins). */
  defaultIntention: 'allow' | 'deny';
  /** ACLs (docs/security.md): off by default, as in Consul. */
  aclEnabled: boolean;
  aclDefaultPolicy: 'allow' | 'deny';
  /** A secret that is always a management token (written to the log at start when missing). */
  aclInitialManagementToken?: string;
  /** TLS on HTTP and gRPC: PEM files, re-read when they change. */
  tlsCert?: string;
  tlsKey?: string;
  /** With a CA, clients must present a certificate it signed (mutual TLS). */
  tlsCa?: string;
  /** mTLS, HTTP only: a request without a token acts as the allowed token whose AccessorID is its certificate's CN. */
  tlsClientCertToken: boolean;
  /** The only AccessorIDs a certificate may act as (never a management token: src/http/cert-token.ts). */
  tlsClientCertTokenAllow: string[];
  /** How often certificate files are checked for changes. */
  tlsReloadIntervalMs: number;
  /** Limits (docs/security.md, "Limits"). */
  limits: Limits;
}

export interface Limits {
  /** Largest HTTP request body (413 above). */
  httpMaxBodyBytes: number;
  /** Largest gRPC message received (RESOURCE_EXHAUSTED above). */
  grpcMaxMessageBytes: number;
  /** Concurrent Subscribe and xDS streams on one gRPC connection. */
  grpcMaxStreamsPerConnection: number;
  /** Concurrent Subscribe streams per ACL token (per secret; the anonymous token counts as one). */
  subscribeMaxStreamsPerToken: number;
  /** Resource names in one xDS request. */
  xdsMaxResourceNames: number;
  /** Operations in one /v1/txn. */
  txnMaxOps: number;
  /** Blocking queries held at once by one client address (429 above). */
  httpMaxBlockingPerClient: number;
  /** HTTP requests per second per client address (429 above; 0 = no limit). */
  httpRateLimit: number;
}

export const DEFAULTS: Config = {
  bind: '127.0.0.1',
  httpPort: 8500,
  grpcPort: 8502,
  dataDir: './data',
  dataDirInsecureOk: false,
  store: { kind: 'sqlite' },
  redis: DEFAULT_REDIS_CLIENT,
  logLevel: 'info',
  nodeName: hostname(),
  datacenter: 'dc1',
  compactKeepTail: 10_000,
  compactEvery: 50_000,
  snapshotCacheTtlMs: 10_000,
  resourceTtlMs: 0,
  resourceTtlTypes: [],
  heartbeatIntervalMs: 0,
  xdsDebounceMs: 50,
  xdsMaxDelayMs: 1_000,
  xdsMaxStreams: 100_000,
  memoryTrim: true,
  gcHeapGrowth: DEFAULT_HEAP_GROWTH,
  checkAllowCidrs: [],
  shutdownTimeoutMs: 10_000,
  sidecarMinPort: 21000,
  sidecarMaxPort: 21255,
  xdsHistory: 1_000,
  xdsHistoryPersist: 'auto',
  aclEnabled: false,
  aclDefaultPolicy: 'allow',
  tlsClientCertToken: false,
  tlsClientCertTokenAllow: [],
  tlsReloadIntervalMs: 10_000,
  limits: {
    httpMaxBodyBytes: 4 * 1024 * 1024,
    grpcMaxMessageBytes: 4 * 1024 * 1024,
    grpcMaxStreamsPerConnection: 2048,
    subscribeMaxStreamsPerToken: 10_000,
    xdsMaxResourceNames: 10_000,
    txnMaxOps: 128,
    httpMaxBlockingPerClient: 1024,
    httpRateLimit: 0,
  },
  caLeafCertTtlMs: 72 * 3_600_000,
  defaultIntention: 'allow',
};

const LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

// The flags, their variables and defaults as shown are one table: src/config-options.ts.

/** Parses a Go-style duration ("10s", "250ms", "1m30s") or a bare number of milliseconds. */
export function parseDurationMs(text: string, field: string): number {
  if (/^\d+$/.test(text)) return Number(text);
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g;
  const unit: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  let total = 0;
  let consumed = 0;
  for (const m of text.matchAll(re)) {
    total += Number(m[1]) * unit[m[2]!]!;
    consumed += m[0].length;
  }
  if (consumed === 0 || consumed !== text.length) throw invalid(field, `not a duration: "${text}"`);
  return Math.round(total);
}

/** Go's strconv.ParseBool, as Consul reads query flags and filter values; undefined when it is not a bool. */
export function parseGoBool(text: string): boolean | undefined {
  if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(text)) return true;
  if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(text)) return false;
  return undefined;
}

function bool(text: string, field: string): boolean {
  if (['true', '1', 'on', 'yes'].includes(text)) return true;
  if (['false', '0', 'off', 'no'].includes(text)) return false;
  throw invalid(field, `expected true or false, got "${text}"`);
}

function port(text: string, field: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw invalid(field, `not a port: "${text}"`);
  return n;
}

/** A byte size: a bare number, or with a KiB/MiB/GiB (or k/m/g) suffix. */
export function parseBytes(text: string, field: string): number {
  const m = /^(\d+)\s*(|b|k|kb|kib|m|mb|mib|g|gb|gib)$/i.exec(text.trim());
  if (!m) throw invalid(field, `not a size: "${text}" (e.g. 4194304, 512KiB, 4MiB)`);
  const unit = m[2]!.toLowerCase()[0];
  const scale = unit === 'k' ? 1024 : unit === 'm' ? 1024 ** 2 : unit === 'g' ? 1024 ** 3 : 1;
  const n = Number(m[1]) * scale;
  if (n < 1) throw invalid(field, 'must be at least 1 byte');
  return n;
}

function positive(text: string, field: string): number {
  const n = count(text, field);
  if (n < 1) throw invalid(field, `must be at least 1, got "${text}"`);
  return n;
}

/** A path to an executable file, refused at start rather than at the first dry run. */
function executable(path: string, field: string): string {
  try {
    if (!statSync(path).isFile()) throw new Error('not a file');
    accessSync(path, constants.X_OK);
  } catch (err) {
    throw invalid(field, `"${path}" is not an executable file (${(err as Error).message})`);
  }
  return path;
}

function count(text: string, field: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) throw invalid(field, `not a non-negative integer: "${text}"`);
  return n;
}

export type XdsTypeShort = 'LDS' | 'RDS' | 'CDS' | 'EDS' | 'SDS';
const TTL_TYPE_NAMES: Record<string, XdsTypeShort> = {
  listeners: 'LDS',
  lds: 'LDS',
  routes: 'RDS',
  rds: 'RDS',
  clusters: 'CDS',
  cds: 'CDS',
  endpoints: 'EDS',
  eds: 'EDS',
  secrets: 'SDS',
  sds: 'SDS',
};

/** "endpoints" or "clusters,endpoints" (or LDS/RDS/CDS/EDS) → the types that carry the resource TTL. */
export function parseTtlTypes(text: string): XdsTypeShort[] {
  const out = new Set<XdsTypeShort>();
  for (const part of text
    .split(',')
    .map((p) => p.trim().toLowerCase())
    .filter((p) => p !== '')) {
    const t = TTL_TYPE_NAMES[part];
    if (!t)
      throw invalid('resource-ttl-types', `expected listeners, routes, clusters, endpoints or secrets, got "${part}"`);
    out.add(t);
  }
  return [...out];
}

export { parseStore };

/** Sets one option from its flag or environment variable, when given and not empty. */
type Setter = (name: OptionName, apply: (v: string) => void) => void;

/** Parses argv (after the command name) and env into a Config. Throws HubError on bad values. */
export function parseConfig(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): Config {
  const { values } = parseArgs({
    args: normalizeBoolFlags(argv),
    options: Object.fromEntries(Object.keys(OPTIONS).map((k) => [k, { type: 'string' as const }])),
    strict: true,
    allowPositionals: false,
  });
  const get = (name: OptionName): string | undefined =>
    (values as Record<string, string | undefined>)[name] ?? env[OPTIONS[name].env];

  const config: Config = {
    ...DEFAULTS,
    store: { ...DEFAULTS.store },
    limits: { ...DEFAULTS.limits },
    redis: { ...DEFAULTS.redis },
  };
  const set: Setter = (name, apply) => {
    const v = get(name);
    if (v !== undefined && v !== '') apply(v);
  };
  setServing(config, set);
  setLimits(config.limits, set);
  setMeshAndHistory(config, set);
  checkCombinations(config, get);
  return config;
}

/** Listening, storage, logging, xDS, ACL and TLS options. */
function setServing(config: Config, set: Setter): void {
  set('bind', (v) => (config.bind = v));
  set('http-port', (v) => (config.httpPort = port(v, 'http-port')));
  set('grpc-port', (v) => (config.grpcPort = port(v, 'grpc-port')));
  set('data-dir', (v) => (config.dataDir = v));
  set('data-dir-insecure-ok', (v) => (config.dataDirInsecureOk = bool(v, 'data-dir-insecure-ok')));
  set('store', (v) => (config.store = parseStore(v)));
  set('redis-wait-replicas', (v) => (config.redis.waitReplicas = count(v, 'redis-wait-replicas')));
  set('redis-password', (v) => (config.redis.password = v));
  set('redis-sentinel-password', (v) => (config.redis.sentinelPassword = v));
  set('redis-tls-ca', (v) => (config.redis.tlsCaFile = v));
  set('log-level', (v) => {
    if (!LEVELS.includes(v as LogLevel)) throw invalid('log-level', `expected one of ${LEVELS.join(', ')}`);
    config.logLevel = v as LogLevel;
  });
  set('node-name', (v) => (config.nodeName = v));
  set('datacenter', (v) => (config.datacenter = v));
  set('upstream', (v) => (config.upstream = v));
  set('upstream-http', (v) => (config.upstreamHttp = v));
  set('compact-keep-tail', (v) => (config.compactKeepTail = count(v, 'compact-keep-tail')));
  set('compact-every', (v) => (config.compactEvery = count(v, 'compact-every')));
  set('snapshot-cache-ttl', (v) => (config.snapshotCacheTtlMs = parseDurationMs(v, 'snapshot-cache-ttl')));
  set('resource-ttl', (v) => (config.resourceTtlMs = parseDurationMs(v, 'resource-ttl')));
  set('resource-ttl-types', (v) => (config.resourceTtlTypes = parseTtlTypes(v)));
  set('heartbeat-interval', (v) => (config.heartbeatIntervalMs = parseDurationMs(v, 'heartbeat-interval')));
  set('xds-debounce', (v) => (config.xdsDebounceMs = parseDurationMs(v, 'xds-debounce')));
  set('xds-max-delay', (v) => (config.xdsMaxDelayMs = parseDurationMs(v, 'xds-max-delay')));
  set('xds-max-streams', (v) => (config.xdsMaxStreams = count(v, 'xds-max-streams')));
  set('memory-trim', (v) => (config.memoryTrim = bool(v, 'memory-trim')));
  set('gc-heap-growth', (v) => {
    const n = count(v, 'gc-heap-growth');
    if (n > MAX_HEAP_GROWTH)
      throw invalid('gc-heap-growth', `expected 0 (V8's own choice) to ${MAX_HEAP_GROWTH} percent, got "${v}"`);
    config.gcHeapGrowth = n;
  });
  set('check-allow-cidr', (v) => {
    config.checkAllowCidrs = v
      .split(',')
      .map((c) => c.trim())
      .filter((c) => c !== '');
    validateCidrs(config.checkAllowCidrs);
  });
  set('shutdown-timeout', (v) => (config.shutdownTimeoutMs = parseDurationMs(v, 'shutdown-timeout')));
  set('acl-enabled', (v) => (config.aclEnabled = bool(v, 'acl-enabled')));
  set('acl-default-policy', (v) => {
    if (v !== 'allow' && v !== 'deny') throw invalid('acl-default-policy', `expected allow or deny, got "${v}"`);
    config.aclDefaultPolicy = v;
  });
  set('acl-initial-management-token', (v) => (config.aclInitialManagementToken = v));
  set('tls-cert', (v) => (config.tlsCert = v));
  set('tls-key', (v) => (config.tlsKey = v));
  set('tls-ca', (v) => (config.tlsCa = v));
  set('tls-client-cert-token', (v) => (config.tlsClientCertToken = bool(v, 'tls-client-cert-token')));
  set('tls-client-cert-token-allow', (v) => {
    config.tlsClientCertTokenAllow = v
      .split(',')
      .map((a) => a.trim())
      .filter((a) => a !== '');
  });
  set(
    'tls-reload-interval',
    (v) => (config.tlsReloadIntervalMs = Math.max(1, parseDurationMs(v, 'tls-reload-interval'))),
  );
}

function setLimits(limits: Config['limits'], set: Setter): void {
  set('http-max-body', (v) => (limits.httpMaxBodyBytes = parseBytes(v, 'http-max-body')));
  set('grpc-max-message', (v) => (limits.grpcMaxMessageBytes = parseBytes(v, 'grpc-max-message')));
  set(
    'grpc-max-streams-per-connection',
    (v) => (limits.grpcMaxStreamsPerConnection = positive(v, 'grpc-max-streams-per-connection')),
  );
  set(
    'subscribe-max-streams-per-token',
    (v) => (limits.subscribeMaxStreamsPerToken = positive(v, 'subscribe-max-streams-per-token')),
  );
  set('xds-max-resource-names', (v) => (limits.xdsMaxResourceNames = positive(v, 'xds-max-resource-names')));
  set('txn-max-ops', (v) => (limits.txnMaxOps = positive(v, 'txn-max-ops')));
  set(
    'http-max-blocking-per-client',
    (v) => (limits.httpMaxBlockingPerClient = positive(v, 'http-max-blocking-per-client')),
  );
  set('http-rate-limit', (v) => (limits.httpRateLimit = count(v, 'http-rate-limit')));
}

/** Sidecar ports, the CA and intentions, the xDS history; each checked as it is set. */
function setMeshAndHistory(config: Config, set: Setter): void {
  set('sidecar-min-port', (v) => (config.sidecarMinPort = port(v, 'sidecar-min-port')));
  set('sidecar-max-port', (v) => (config.sidecarMaxPort = port(v, 'sidecar-max-port')));
  if (config.sidecarMinPort > config.sidecarMaxPort)
    throw invalid('sidecar-min-port', 'must not exceed --sidecar-max-port');
  set('ca-leaf-cert-ttl', (v) => (config.caLeafCertTtlMs = parseDurationMs(v, 'ca-leaf-cert-ttl')));
  if (config.caLeafCertTtlMs < 1000) throw invalid('ca-leaf-cert-ttl', 'must be at least 1s');
  set('default-intention', (v) => {
    if (v !== 'allow' && v !== 'deny') throw invalid('default-intention', `expected allow or deny, got "${v}"`);
    config.defaultIntention = v;
  });

  set('xds-history', (v) => (config.xdsHistory = count(v, 'xds-history')));
  set('envoy-validate-binary', (v) => (config.envoyValidateBinary = executable(v, 'envoy-validate-binary')));
  set('xds-history-persist', (v) => {
    if (v !== 'auto' && v !== 'on' && v !== 'off')
      throw invalid('xds-history-persist', `expected auto, on or off, got "${v}"`);
    config.xdsHistoryPersist = v;
  });
  if (config.xdsHistoryPersist === 'on' && storeKind(config.store).history === 'none') {
    throw invalid(
      'xds-history-persist',
      'on needs a stored log (SQLite: history.db beside it in --data-dir; Redis: keys beside the log); with --store memory the history is kept in memory only',
    );
  }
}

/** Options that are refused together (or without one another). */
function checkCombinations(config: Config, get: (name: OptionName) => string | undefined): void {
  checkFanout(config, (name) => get(name) !== undefined && get(name) !== '');
  const redisFlags = (
    ['redis-wait-replicas', 'redis-password', 'redis-sentinel-password', 'redis-tls-ca'] as const
  ).filter((f) => get(f));
  if (redisFlags.length > 0 && !storeKind(config.store).redisFlags) {
    throw invalid(redisFlags[0]!, 'applies to a Redis store only (--store redis://… or redis-sentinel://…)');
  }
  if ((config.tlsCert === undefined) !== (config.tlsKey === undefined)) {
    throw invalid(config.tlsCert === undefined ? 'tls-cert' : 'tls-key', 'give both --tls-cert and --tls-key');
  }
  if (config.tlsCa !== undefined && config.tlsCert === undefined)
    throw invalid('tls-ca', 'mutual TLS needs --tls-cert and --tls-key too');
  checkCertTokens(config);
  if (config.aclInitialManagementToken !== undefined && !config.aclEnabled) {
    throw invalid('acl-initial-management-token', 'needs --acl-enabled');
  }
  if (config.xdsMaxDelayMs < config.xdsDebounceMs) {
    throw invalid('xds-max-delay', 'must be at least --xds-debounce');
  }
}

/**
 * Options a fan-out hub (--upstream, docs/fanout.md) cannot honour: it keeps no
 * log, runs no checks, holds no CA and no ACL tables. Refused, never ignored.
 */
const NOT_ON_FANOUT: readonly OptionName[] = [
  'store',
  'data-dir',
  'compact-every',
  'compact-keep-tail',
  'snapshot-cache-ttl',
  'xds-history-persist',
  'check-allow-cidr',
  'sidecar-min-port',
  'sidecar-max-port',
  'ca-leaf-cert-ttl',
  'acl-enabled',
  'acl-default-policy',
  'acl-initial-management-token',
  'tls-client-cert-token',
  'tls-client-cert-token-allow',
  'data-dir-insecure-ok',
];

/** --tls-client-cert-token: a certificate acts only as a token named in the allow list (docs/security.md). */
function checkCertTokens(config: Config): void {
  const allowed = config.tlsClientCertTokenAllow.length > 0;
  if (config.tlsClientCertToken && config.tlsCa === undefined) {
    throw invalid('tls-client-cert-token', 'needs --tls-ca (client certificates)');
  }
  if (config.tlsClientCertToken && !allowed) {
    throw invalid(
      'tls-client-cert-token',
      'needs --tls-client-cert-token-allow: the AccessorIDs a certificate may act as',
    );
  }
  if (allowed && !config.tlsClientCertToken) {
    throw invalid('tls-client-cert-token-allow', 'applies with --tls-client-cert-token only');
  }
}

function checkFanout(config: Config, given: (name: OptionName) => boolean): void {
  if (config.upstream === undefined) {
    if (config.upstreamHttp !== undefined)
      throw invalid('upstream-http', 'only a fan-out hub forwards writes; give --upstream host:port too');
    return;
  }
  if (!/^[^\s/:]+:\d+$|^\[[0-9a-fA-F:]+\]:\d+$/.test(config.upstream)) {
    throw invalid('upstream', `expected the upstream hub's gRPC address host:port, got "${config.upstream}"`);
  }
  if (config.upstreamHttp === undefined)
    throw invalid(
      'upstream-http',
      "a fan-out hub (--upstream) needs the upstream's HTTP API to forward writes to, e.g. --upstream-http http://host:8500",
    );
  if (!/^https?:\/\/[^\s/]+\/?$/.test(config.upstreamHttp)) {
    throw invalid('upstream-http', `expected http://host:port or https://host:port, got "${config.upstreamHttp}"`);
  }
  const refused = NOT_ON_FANOUT.find(given);
  if (refused)
    throw invalid(
      refused,
      `a fan-out hub (--upstream) keeps no log, CA or ACL tables and runs no checks; --${refused} does not apply to it (set it on the upstream hub)`,
    );
}
