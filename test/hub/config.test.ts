// Flags and XDSHUB_* variables parsed once into Config; bad values name the flag.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULTS, parseConfig } from '../../src/config';
import { isHubError } from '../../src/errors';

test('--memory-trim: on by default; true/false, on/off, 1/0 from a flag or XDSHUB_MEMORY_TRIM; the flag wins', () => {
  assert.equal(DEFAULTS.memoryTrim, true);
  assert.equal(parseConfig([], {}).memoryTrim, true);
  for (const v of ['false', 'off', '0', 'no']) assert.equal(parseConfig([`--memory-trim=${v}`], {}).memoryTrim, false, v);
  for (const v of ['true', 'on', '1', 'yes']) assert.equal(parseConfig(['--memory-trim', v], {}).memoryTrim, true, v);
  assert.equal(parseConfig([], { XDSHUB_MEMORY_TRIM: 'false' }).memoryTrim, false);
  assert.equal(parseConfig(['--memory-trim=true'], { XDSHUB_MEMORY_TRIM: 'false' }).memoryTrim, true);
});

test('--memory-trim: anything else is an invalid-argument error naming the flag', () => {
  for (const [argv, env] of [[['--memory-trim=maybe'], {}], [[], { XDSHUB_MEMORY_TRIM: 'TRUEISH' }]] as const) {
    assert.throws(
      () => parseConfig(argv, env),
      (err: unknown) => isHubError(err) && err.code === 'INVALID_ARGUMENT' && /memory-trim/.test(err.message) && /expected true or false/.test(err.message),
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
  assert.throws(() => parseConfig(['--shutdown-timeout=soon'], {}), (err: unknown) => isHubError(err, 'INVALID_ARGUMENT') && /shutdown-timeout/.test(err.message));
});

test('--xds-history-persist: on is taken with a SQLite or Redis log, refused (naming the flag) with the memory log', () => {
  assert.equal(parseConfig(['--xds-history-persist=on'], {}).xdsHistoryPersist, 'on');
  assert.equal(parseConfig(['--xds-history-persist=on', '--store=redis://127.0.0.1:6379'], {}).xdsHistoryPersist, 'on');
  assert.throws(
    () => parseConfig(['--xds-history-persist=on', '--store=memory'], {}),
    (err: unknown) => isHubError(err, 'INVALID_ARGUMENT') && err.field === 'xds-history-persist' && /memory/.test(err.message),
  );
  assert.throws(() => parseConfig(['--xds-history-persist=maybe'], {}), (err: unknown) => isHubError(err, 'INVALID_ARGUMENT') && /xds-history-persist/.test(err.message));
});

test('fan-out (--upstream): needs --upstream-http, refuses a store and what it cannot honour, naming the flag', () => {
  const fan = ['--upstream', 'core:8502', '--upstream-http', 'http://core:8500'];
  const ok = parseConfig(fan, {});
  assert.equal(ok.upstream, 'core:8502');
  assert.equal(ok.upstreamHttp, 'http://core:8500');
  assert.equal(parseConfig([], { XDSHUB_UPSTREAM: 'core:8502', XDSHUB_UPSTREAM_HTTP: 'http://core:8500' }).upstreamHttp, 'http://core:8500');
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
    assert.throws(() => parseConfig([...args], {}), (err: Error) => err.message.startsWith(`${field}:`), `${args.join(' ')} → ${field}`);
  }
});

test('--store takes redis://, rediss://, redis-sentinel:// and rediss-sentinel:// URLs; the --redis-* flags only with a Redis store', () => {
  for (const url of ['redis://127.0.0.1:6379', 'rediss://:pw@cache:6380/2', 'redis-sentinel://s1:26379,s2:26379,[::1]:26380/mymaster', 'rediss-sentinel://s1/m']) {
    assert.deepEqual(parseConfig(['--store', url], {}).store, { kind: 'redis', url });
  }
  const c = parseConfig(['--store=redis-sentinel://s1:26379/m', '--redis-wait-replicas=1', '--redis-tls-ca=/etc/ca.pem'], { XDSHUB_REDIS_PASSWORD: 'pw', XDSHUB_REDIS_SENTINEL_PASSWORD: 'spw' });
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
    assert.throws(() => parseConfig(argv, {}), (err: unknown) => isHubError(err, 'INVALID_ARGUMENT') && message.test(err.message), argv.join(' '));
  }
});

test('a password in a --store URL is never shown back', () => {
  assert.throws(() => parseConfig(['--store', 'redis://user:hunter2@a:1,b:2'], {}), (err: unknown) => isHubError(err) && !/hunter2/.test(err.message) && /user:\*\*\*@/.test(err.message));
});
