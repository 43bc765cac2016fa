// Flags and XDSHUB_* variables parsed once into Config; bad values name the flag.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { type Config, DEFAULTS, parseConfig } from '../../src/config';
import { OPTIONS, type OptionName, type OptionSpec, optionsHelp } from '../../src/config-options';
import { isHubError } from '../../src/errors';

test('--memory-trim: on by default; true/false, on/off, 1/0 from a flag or XDSHUB_MEMORY_TRIM; the flag wins', () => {
  assert.equal(DEFAULTS.memoryTrim, true);
  assert.equal(parseConfig([], {}).memoryTrim, true);
  for (const v of ['false', 'off', '0', 'no'])
    assert.equal(parseConfig([`--memory-trim=${v}`], {}).memoryTrim, false, v);
  for (const v of ['true', 'on', '1', 'yes']) assert.equal(parseConfig(['--memory-trim', v], {}).memoryTrim, true, v);
  assert.equal(parseConfig([], { XDSHUB_MEMORY_TRIM: 'false' }).memoryTrim, false);
  assert.equal(parseConfig(['--memory-trim=true'], { XDSHUB_MEMORY_TRIM: 'false' }).memoryTrim, true);
});

test('--gc-heap-growth: 100 by default; a percent from the flag or XDSHUB_GC_HEAP_GROWTH, the flag winning; 0 to 300 only', () => {
  assert.equal(DEFAULTS.gcHeapGrowth, 100);
  assert.equal(parseConfig([], {}).gcHeapGrowth, 100);
  assert.equal(parseConfig(['--gc-heap-growth', '0'], {}).gcHeapGrowth, 0);
  assert.equal(parseConfig([], { XDSHUB_GC_HEAP_GROWTH: '50' }).gcHeapGrowth, 50);
  assert.equal(parseConfig(['--gc-heap-growth=300'], { XDSHUB_GC_HEAP_GROWTH: '50' }).gcHeapGrowth, 300);
  for (const bad of ['-1', '301', '1.5', 'lots'])
    assert.throws(
      () => parseConfig([`--gc-heap-growth=${bad}`], {}),
      (err: unknown) => isHubError(err) && err.code === 'INVALID_ARGUMENT' && /gc-heap-growth/.test(err.message),
      bad,
    );
});

test('--memory-trim: anything else is an invalid-argument error naming the flag', () => {
  for (const [argv, env] of [
    [['--memory-trim=maybe'], {}],
    [[], { XDSHUB_MEMORY_TRIM: 'TRUEISH' }],
  ] as const) {
    assert.throws(
      () => parseConfig(argv, env),
      (err: unknown) =>
        isHubError(err) &&
        err.code === 'INVALID_ARGUMENT' &&
        /memory-trim/.test(err.message) &&
        /expected true or false/.test(err.message),
    );
  }
});

test('durations take Go syntax or bare milliseconds; --xds-max-delay below --xds-debounce is refused', () => {
  const c = parseConfig(['--resource-ttl=1m30s', '--xds-debounce', '20', '--xds-max-delay=1.5s'], {});
  assert.equal(c.resourceTtlMs, 90_000);
  assert.equal(c.xdsDebounceMs, 20);
  assert.equal(c.xdsMaxDelayMs, 1_500);
  assert.throws(() => parseConfig(['--xds-debounce=2s', '--xds-max-delay=1s'], {}), /xds-max-delay/);
});

test('--shutdown-timeout: 10 s by default, a duration from the flag or XDSHUB_SHUTDOWN_TIMEOUT', () => {
  assert.equal(DEFAULTS.shutdownTimeoutMs, 10_000);
  assert.equal(parseConfig(['--shutdown-timeout=30s'], {}).shutdownTimeoutMs, 30_000);
  assert.equal(parseConfig([], { XDSHUB_SHUTDOWN_TIMEOUT: '2500' }).shutdownTimeoutMs, 2_500);
  assert.throws(
    () => parseConfig(['--shutdown-timeout=soon'], {}),
    (err: unknown) => isHubError(err, 'INVALID_ARGUMENT') && /shutdown-timeout/.test(err.message),
  );
});

test('--xds-history-persist: on is taken with a SQLite or Redis log, refused (naming the flag) with the memory log', () => {
  assert.equal(parseConfig(['--xds-history-persist=on'], {}).xdsHistoryPersist, 'on');
  assert.equal(parseConfig(['--xds-history-persist=on', '--store=redis://127.0.0.1:6379'], {}).xdsHistoryPersist, 'on');
  assert.throws(
    () => parseConfig(['--xds-history-persist=on', '--store=memory'], {}),
    (err: unknown) =>
      isHubError(err, 'INVALID_ARGUMENT') && err.field === 'xds-history-persist' && /memory/.test(err.message),
  );
  assert.throws(
    () => parseConfig(['--xds-history-persist=maybe'], {}),
    (err: unknown) => isHubError(err, 'INVALID_ARGUMENT') && /xds-history-persist/.test(err.message),
  );
});

test('fan-out (--upstream): needs --upstream-http, refuses a store and what it cannot honour, naming the flag', () => {
  const fan = ['--upstream', 'core:8502', '--upstream-http', 'http://core:8500'];
  const ok = parseConfig(fan, {});
  assert.equal(ok.upstream, 'core:8502');
  assert.equal(ok.upstreamHttp, 'http://core:8500');
  assert.equal(
    parseConfig([], { XDSHUB_UPSTREAM: 'core:8502', XDSHUB_UPSTREAM_HTTP: 'http://core:8500' }).upstreamHttp,
    'http://core:8500',
  );
  for (const [args, field] of [
    [['--upstream', 'core:8502'], 'upstream-http'],
    [['--upstream-http', 'http://core:8500'], 'upstream-http'],
    [['--upstream', 'core', '--upstream-http', 'http://core:8500'], 'upstream'],
    [['--upstream', 'core:8502', '--upstream-http', 'core:8500'], 'upstream-http'],
    [[...fan, '--store', 'sqlite'], 'store'],
    [[...fan, '--store', 'memory'], 'store'],
    [[...fan, '--store', 'redis://127.0.0.1:6379'], 'store'],
    [[...fan, '--compact-every', '10'], 'compact-every'],
    [[...fan, '--acl-enabled', 'true'], 'acl-enabled'],
    [[...fan, '--check-allow-cidr', '10.0.0.0/8'], 'check-allow-cidr'],
  ] as const) {
    assert.throws(
      () => parseConfig([...args], {}),
      (err: Error) => err.message.startsWith(`${field}:`),
      `${args.join(' ')} → ${field}`,
    );
  }
});

test('--store takes redis://, rediss://, redis-sentinel:// and rediss-sentinel:// URLs; the --redis-* flags only with a Redis store', () => {
  for (const url of [
    'redis://127.0.0.1:6379',
    'rediss://:pw@cache:6380/2',
    'redis-sentinel://s1:26379,s2:26379,[::1]:26380/mymaster',
    'rediss-sentinel://s1/m',
  ]) {
    assert.deepEqual(parseConfig(['--store', url], {}).store, { kind: 'redis', url });
  }
  const c = parseConfig(
    ['--store=redis-sentinel://s1:26379/m', '--redis-wait-replicas=1', '--redis-tls-ca=/etc/ca.pem'],
    { XDSHUB_REDIS_PASSWORD: 'pw', XDSHUB_REDIS_SENTINEL_PASSWORD: 'spw' },
  );
  assert.deepEqual(c.redis, { waitReplicas: 1, tlsCaFile: '/etc/ca.pem', password: 'pw', sentinelPassword: 'spw' });
  assert.equal(parseConfig([], {}).redis.waitReplicas, 0);
  const refused: [string[], RegExp][] = [
    [['--store', 'redis-sentinel://s1:26379'], /store: a sentinel URL names the master/],
    [['--store', 'redis://a:1,b:2'], /store: several hosts need redis-sentinel/],
    [['--store', 'redis://host:99999'], /store: not host:port/],
    [['--store', 'mongodb://x'], /store: expected redis:\/\/host:port/],
    [['--store', 'redis://h', '--redis-wait-replicas=-1'], /redis-wait-replicas: not a non-negative integer/],
    [['--redis-wait-replicas', '1'], /redis-wait-replicas: applies to a Redis store only/],
  ];
  for (const [argv, message] of refused) {
    assert.throws(
      () => parseConfig(argv, {}),
      (err: unknown) => isHubError(err, 'INVALID_ARGUMENT') && message.test(err.message),
      argv.join(' '),
    );
  }
});

test('a password in a --store URL is never shown back', () => {
  assert.throws(
    () => parseConfig(['--store', 'redis://user:hunter2@a:1,b:2'], {}),
    (err: unknown) => isHubError(err) && !/hunter2/.test(err.message) && /user:\*\*\*@/.test(err.message),
  );
});

// One table (src/config-options.ts) for the parser, `serve --help` and README's Configuration table.
const readmeRows = (): Map<string, { env: string; def: string }> => {
  const readme = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');
  const section = readme.slice(
    readme.indexOf('## Configuration'),
    readme.indexOf('\n## ', readme.indexOf('## Configuration') + 1),
  );
  const rows = new Map<string, { env: string; def: string }>();
  for (const m of section.matchAll(/^\| `--([a-z0-9-]+)` \| `([A-Z0-9_]+)` \| ([^|]+) \| .+ \|$/gm))
    rows.set(m[1]!, { env: m[2]!, def: m[3]!.trim() });
  return rows;
};

/** What a flag needs beside it to be accepted. */
const CONTEXT: Partial<Record<OptionName, string[]>> = {
  'redis-wait-replicas': ['--store=redis://127.0.0.1:6379'],
  'redis-password': ['--store=redis://127.0.0.1:6379'],
  'redis-sentinel-password': ['--store=redis://127.0.0.1:6379'],
  'redis-tls-ca': ['--store=redis://127.0.0.1:6379'],
  upstream: ['--upstream-http=http://core:8500'],
  'upstream-http': ['--upstream=core:8502'],
  'acl-initial-management-token': ['--acl-enabled'],
  'tls-cert': ['--tls-key=/k.pem'],
  'tls-key': ['--tls-cert=/c.pem'],
  'tls-ca': ['--tls-cert=/c.pem', '--tls-key=/k.pem'],
  'tls-client-cert-token': [
    '--tls-cert=/c.pem',
    '--tls-key=/k.pem',
    '--tls-ca=/ca.pem',
    '--tls-client-cert-token-allow=a',
  ],
  'tls-client-cert-token-allow': [
    '--tls-cert=/c.pem',
    '--tls-key=/k.pem',
    '--tls-ca=/ca.pem',
    '--tls-client-cert-token',
  ],
  'xds-max-delay': ['--xds-debounce=1ms'],
};
/** A value for each flag other than its default: the parser must apply every flag of the table. */
const SAMPLE: Record<OptionName, string> = {
  bind: '0.0.0.0',
  'http-port': '1',
  'grpc-port': '2',
  'data-dir': '/d',
  'data-dir-insecure-ok': 'true',
  store: 'memory',
  'redis-wait-replicas': '1',
  'redis-password': 'p',
  'redis-sentinel-password': 'p',
  'redis-tls-ca': '/ca',
  'log-level': 'warn',
  'node-name': 'n',
  datacenter: 'dc2',
  upstream: 'core:8502',
  'upstream-http': 'http://core:8500',
  'compact-keep-tail': '1',
  'compact-every': '1',
  'snapshot-cache-ttl': '1s',
  'resource-ttl': '1s',
  'resource-ttl-types': 'endpoints',
  'heartbeat-interval': '1s',
  'xds-debounce': '1ms',
  'xds-max-delay': '2ms',
  'xds-max-streams': '1',
  'memory-trim': 'false',
  'gc-heap-growth': '50',
  'check-allow-cidr': '10.0.0.0/8',
  'shutdown-timeout': '1s',
  'sidecar-min-port': '21001',
  'sidecar-max-port': '21002',
  'xds-history': '1',
  'xds-history-persist': 'off',
  'acl-enabled': 'true',
  'acl-default-policy': 'deny',
  'acl-initial-management-token': 's',
  'tls-cert': '/c.pem',
  'tls-key': '/k.pem',
  'tls-ca': '/ca.pem',
  'tls-client-cert-token': 'true',
  'tls-client-cert-token-allow': 'a',
  'tls-reload-interval': '1s',
  'http-max-body': '1',
  'grpc-max-message': '1',
  'grpc-max-streams-per-connection': '1',
  'subscribe-max-streams-per-token': '1',
  'xds-max-resource-names': '1',
  'txn-max-ops': '1',
  'http-max-blocking-per-client': '1',
  'http-rate-limit': '1',
  'ca-leaf-cert-ttl': '1h',
  'default-intention': 'deny',
  'envoy-validate-binary': process.execPath,
};
const NAMES = Object.keys(OPTIONS) as OptionName[];
const SPECS: Record<string, OptionSpec> = OPTIONS;

test('every flag of the table is applied by the parser, from the flag and from its variable', () => {
  for (const name of NAMES) {
    const ctx = CONTEXT[name] ?? [];
    const byFlag = parseConfig([...ctx, `--${name}=${SAMPLE[name]}`], {});
    let base: Config | undefined;
    try {
      base = parseConfig(ctx, {});
    } catch {
      base = undefined; // the context alone is refused (it needs this flag): the flag had its effect
    }
    if (base !== undefined) assert.notDeepEqual(byFlag, base, name);
    assert.deepEqual(
      parseConfig(ctx, { [SPECS[name]!.env]: SAMPLE[name] }),
      byFlag,
      `${name} from ${SPECS[name]!.env}`,
    );
  }
});

test("the table's defaults are the parser's: each literal default given explicitly changes nothing", () => {
  for (const name of NAMES) {
    const spec = SPECS[name]!;
    if (!spec.literal) continue;
    const ctx = name === 'redis-wait-replicas' ? CONTEXT[name]! : [];
    assert.deepEqual(parseConfig([...ctx, `--${name}=${spec.def}`], {}), parseConfig(ctx, {}), `--${name}=${spec.def}`);
  }
});

test("README.md's Configuration table has one row per flag, with the table's variable and default, and no other flag", () => {
  const rows = readmeRows();
  assert.deepEqual([...rows.keys()].sort(), [...NAMES].sort());
  for (const name of NAMES) {
    const spec = SPECS[name]!;
    assert.deepEqual(rows.get(name), { env: spec.env, def: spec.literal ? `\`${spec.def}\`` : spec.def }, name);
  }
});

test('serve --help lists every flag with its default and variable', () => {
  const help = optionsHelp();
  for (const name of NAMES) {
    const spec = SPECS[name]!;
    const at = help.indexOf(`  --${name}${spec.bool ? '[=true|false]' : ' <value>'}\n`);
    assert.ok(at >= 0, name);
    assert.ok(help.slice(at).split('\n')[1]!.includes(`(default: ${spec.def}; env ${spec.env})`), name);
  }
});

test('boolean flags take the bare form, =true|false, and a following true/false word', () => {
  const c = parseConfig(['--acl-enabled', '--acl-default-policy', 'deny'], {});
  assert.equal(c.aclEnabled, true);
  assert.equal(c.aclDefaultPolicy, 'deny');
  assert.equal(parseConfig(['--acl-default-policy', 'deny', '--acl-enabled'], {}).aclEnabled, true, 'bare, last');
  for (const name of NAMES.filter((n) => SPECS[n]!.bool)) {
    const ctx = (CONTEXT[name] ?? []).filter((a) => a !== `--${name}`);
    const field = (cfg: Config) => JSON.stringify(cfg);
    const on = field(parseConfig([...ctx, `--${name}=true`], {}));
    const off = field(parseConfig([`--${name}=false`], {}));
    assert.notEqual(on, off, name);
    assert.equal(field(parseConfig([`--${name}`, ...ctx], {})), on, `bare --${name} before other flags`);
    assert.equal(field(parseConfig([...ctx, `--${name}`], {})), on, `bare --${name} last`);
    for (const word of ['true', '1', 'on', 'yes'])
      assert.equal(field(parseConfig([`--${name}`, word, ...ctx], {})), on, `--${name} ${word}`);
    for (const word of ['false', '0', 'off', 'no'])
      assert.equal(field(parseConfig([`--${name}`, word], {})), off, `--${name} ${word}`);
    assert.throws(
      () => parseConfig([...ctx, `--${name}=maybe`], {}),
      (err: unknown) => isHubError(err, 'INVALID_ARGUMENT') && err.field === name,
    );
  }
  // A string flag still refuses a missing value rather than swallowing the next flag.
  assert.throws(() => parseConfig(['--acl-default-policy', '--acl-enabled'], {}), /ambiguous/);
});

test('--tls-client-cert-token needs --tls-client-cert-token-allow (and the list needs the flag)', () => {
  const tls = ['--tls-cert=/c.pem', '--tls-key=/k.pem', '--tls-ca=/ca.pem'];
  assert.throws(
    () => parseConfig([...tls, '--tls-client-cert-token'], {}),
    (err: unknown) =>
      isHubError(err) && err.field === 'tls-client-cert-token' && /tls-client-cert-token-allow/.test(err.message),
  );
  assert.throws(
    () => parseConfig([...tls, '--tls-client-cert-token-allow=a'], {}),
    (err: unknown) => isHubError(err) && err.field === 'tls-client-cert-token-allow',
  );
  assert.deepEqual(
    parseConfig([...tls, '--tls-client-cert-token', '--tls-client-cert-token-allow', 'a, b'], {})
      .tlsClientCertTokenAllow,
    ['a', 'b'],
  );
});

test('--envoy-validate-binary must name an executable file, refused at start naming the flag', () => {
  assert.equal(parseConfig([`--envoy-validate-binary=${process.execPath}`], {}).envoyValidateBinary, process.execPath);
  for (const bad of ['/nonexistent/envoy', __dirname, __filename]) {
    assert.throws(
      () => parseConfig([`--envoy-validate-binary=${bad}`], {}),
      (err: unknown) =>
        isHubError(err, 'INVALID_ARGUMENT') &&
        err.field === 'envoy-validate-binary' &&
        /is not an executable file/.test(err.message),
    );
  }
});
