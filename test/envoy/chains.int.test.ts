// L7 traffic management proven by traffic through a real Envoy: service-router
// matches, rewrites, timeouts and retries; service-splitter shares and header
// changes; service-resolver subsets, default subset, redirect, failover and
// connect timeout; service-defaults protocol, limits and outlier detection.
// Each chain is compiled router → splitter → resolver as Consul does.

import assert from 'node:assert/strict';
import { once } from 'node:events';
import http2 from 'node:http2';
import { after, before, test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import type { Hub } from '../../src/hub';
import type { Envoy } from '../helpers/envoy';
import { ECHO_METHOD, startEcho } from '../xds/e2e/echo-backend';
import { envoyHolds } from './config-dump';
import {
  type Backend,
  freePort,
  hubCall,
  hubNacks,
  request,
  startBackend,
  startGateway,
  startHubWithXds,
  untilServedBy,
} from './harness';

let hub: Hub;
let envoy: Envoy;
let port: number;
const backends = new Map<string, Backend>();
const extra: (() => Promise<unknown>)[] = [];

/** Services the gateway serves, each under Host = its name. */
const SERVICES = ['web', 'split', 'ver', 'old', 'primary', 'tier', 'h2', 'gsvc', 'limited', 'od'];

async function backend(name: string, respond?: Parameters<typeof startBackend>[1]): Promise<Backend> {
  const b = await startBackend(name, respond);
  backends.set(name, b);
  return b;
}

async function register(
  service: string,
  b: Backend,
  extraFields: Record<string, unknown> = {},
  check: Record<string, unknown> = { Status: 'passing' },
): Promise<void> {
  await hubCall(hub.httpUrl, 'PUT', '/v1/agent/service/register', {
    ID: b.name,
    Name: service,
    Address: '127.0.0.1',
    Port: b.port,
    Check: { CheckID: `${b.name}-check`, TTL: '10m', ...check },
    ...extraFields,
  });
}

const put = (entry: Record<string, unknown>) => hubCall(hub.httpUrl, 'PUT', '/v1/config', entry);
const get = (host: string, path = '/', options: Parameters<typeof request>[2] = {}) =>
  request(port, path, { ...options, host });

before(async () => {
  hub = await startHubWithXds();
  port = await freePort();
  await put({
    Kind: 'ingress-gateway',
    Name: 'edge',
    Listeners: [{ Port: port, Protocol: 'http', Services: SERVICES.map((s) => ({ Name: s, Hosts: [s] })) }],
  });
  envoy = await startGateway(hub, 'delta-ads', 'edge', 'chains');
});

after(async () => {
  await envoy?.stop();
  await hub?.close();
  for (const b of backends.values()) await b.close();
  for (const c of extra) await c();
});

test('service-router: path, header, query and method matches send each request where they say; prefix rewrite', async () => {
  for (const name of ['web', 'admin', 'debug', 'canary', 'writer', 'exact', 'versioned'])
    await register(name, await backend(name));
  await put({ Kind: 'service-defaults', Name: 'web', Protocol: 'http' });
  await put({
    Kind: 'service-router',
    Name: 'web',
    Routes: [
      { Match: { HTTP: { PathExact: '/exact' } }, Destination: { Service: 'exact' } },
      { Match: { HTTP: { PathPrefix: '/admin/' } }, Destination: { Service: 'admin', PrefixRewrite: '/internal/' } },
      { Match: { HTTP: { PathRegex: '/v[0-9]+/.*' } }, Destination: { Service: 'versioned' } },
      { Match: { HTTP: { Header: [{ Name: 'x-debug', Exact: '1' }] } }, Destination: { Service: 'debug' } },
      { Match: { HTTP: { QueryParam: [{ Name: 'canary', Present: true }] } }, Destination: { Service: 'canary' } },
      { Match: { HTTP: { Methods: ['POST', 'PUT'] } }, Destination: { Service: 'writer' } },
    ],
  });
  await untilServedBy(envoy, port, 'exact', { host: 'web', path: '/exact' });
  const cases: [string, Parameters<typeof request>[2], string][] = [
    ['/', {}, 'web'],
    ['/exact', {}, 'exact'],
    ['/exact/more', {}, 'web'],
    ['/admin/users', {}, 'admin'],
    ['/v2/items', {}, 'versioned'],
    ['/x', { headers: { 'x-debug': '1' } }, 'debug'],
    ['/x', { headers: { 'x-debug': '2' } }, 'web'],
    ['/x?canary=yes', {}, 'canary'],
    ['/x', { method: 'POST' }, 'writer'],
    ['/x', { method: 'GET' }, 'web'],
  ];
  for (const [path, options, want] of cases) {
    const res = await get('web', path, options);
    assert.equal(
      `${res.status} ${res.body}`,
      `200 ${want}`,
      `${options?.method ?? 'GET'} ${path} ${JSON.stringify(options?.headers ?? {})}`,
    );
  }
  assert.equal(backends.get('admin')!.last()!.path, '/internal/users', 'PrefixRewrite replaced the matched prefix');
});

test('service-router: a request timeout answers 504 while the backend holds the request; retries on the listed status hide a flaky backend', async () => {
  let calls = 0;
  const flaky = await backend('flaky', (_req, res) => {
    // Every other request fails: without retries half the answers are 503.
    if (++calls % 2 === 1) {
      res.statusCode = 503;
      res.end('flaky says no');
      return true;
    }
    return false;
  });
  // The slow backend answers only when the test lets it: a 504 can come from nothing but the route's timeout.
  const held: (() => void)[] = [];
  extra.push(async () => held.forEach((answer) => answer()));
  const slow = await backend('slow', (_req, res) => {
    held.push(() => res.end('slow'));
    return true;
  });
  await register('flaky', flaky);
  await register('slow', slow);
  await put({
    Kind: 'service-router',
    Name: 'web',
    Routes: [
      { Match: { HTTP: { PathPrefix: '/slow' } }, Destination: { Service: 'slow', RequestTimeout: '300ms' } },
      {
        Match: { HTTP: { PathPrefix: '/flaky-retry' } },
        Destination: { Service: 'flaky', NumRetries: 3, RetryOnStatusCodes: [503] },
      },
      { Match: { HTTP: { PathPrefix: '/flaky' } }, Destination: { Service: 'flaky' } },
    ],
  });
  await envoy.until(async () => (await get('web', '/flaky')).body.startsWith('flaky'), 'the flaky route');
  const plain = await Promise.all(Array.from({ length: 10 }, () => get('web', '/flaky')));
  assert.ok(
    plain.some((r) => r.status === 503),
    'without retries the flaky backend shows through',
  );
  for (let i = 0; i < 10; i++) assert.equal((await get('web', '/flaky-retry')).status, 200);
  const timedOut = await get('web', '/slow');
  assert.equal(`${timedOut.status} ${timedOut.body}`, '504 upstream request timeout');
  assert.equal(held.length, 1, 'the request reached the slow backend, which never answered it');
  assert.ok(
    ((await envoy.stats()).get('cluster.slow.upstream_rq_timeout') ?? 0) >= 1,
    'Envoy counted the request timeout on cluster slow',
  );
});

test('service-splitter: 70/30 shares within ±3 points over 3,000 requests, with per-split request and response headers', async () => {
  await register('split-a', await backend('split-a'));
  await register('split-b', await backend('split-b'));
  await put({ Kind: 'service-defaults', Name: 'split', Protocol: 'http' });
  await put({
    Kind: 'service-splitter',
    Name: 'split',
    Splits: [
      {
        Weight: 70,
        Service: 'split-a',
        RequestHeaders: { Set: { 'x-split': 'a' } },
        ResponseHeaders: { Set: { 'x-served-by-split': 'a' } },
      },
      { Weight: 30, Service: 'split-b', ResponseHeaders: { Add: { 'x-served-by-split': 'b' } } },
    ],
  });
  await untilServedBy(envoy, port, ['split-a', 'split-b'], { host: 'split' });
  const counts = new Map<string, number>();
  // Envoy picks each request's cluster at random: over 1,000 requests a 70 %
  // share lands outside ±3 points one run in 25; over 3,000, one in 3,000.
  const N = 3_000;
  for (let i = 0; i < N; i += 100) {
    const batch = await Promise.all(Array.from({ length: 100 }, () => get('split')));
    for (const r of batch) {
      assert.equal(r.status, 200);
      counts.set(r.body, (counts.get(r.body) ?? 0) + 1);
      assert.equal(
        r.headers['x-served-by-split'],
        r.body === 'split-a' ? 'a' : 'b',
        'response header of the split that served it',
      );
    }
  }
  const shareA = ((counts.get('split-a') ?? 0) * 100) / N;
  assert.ok(Math.abs(shareA - 70) <= 3, `split-a got ${shareA}% (want 70 ± 3): ${JSON.stringify([...counts])}`);
  assert.equal(backends.get('split-a')!.last()!.headers['x-split'], 'a', 'request header set by the split');
});

test('service-resolver: subsets by meta and tag with a default subset; a router destination picks a subset; a splitter splits over subsets', async () => {
  await register('ver', await backend('ver-1'), { Meta: { version: 'v1' }, Tags: ['v1'] });
  await register('ver', await backend('ver-2'), { Meta: { version: 'v2' }, Tags: ['v2', 'beta'] });
  await put({ Kind: 'service-defaults', Name: 'ver', Protocol: 'http' });
  await put({
    Kind: 'service-resolver',
    Name: 'ver',
    DefaultSubset: 'v1',
    Subsets: { v1: { Filter: 'Service.Meta.version == v1' }, v2: { Filter: '"beta" in Service.Tags' } },
  });
  await put({
    Kind: 'service-router',
    Name: 'ver',
    Routes: [
      { Match: { HTTP: { Header: [{ Name: 'x-version', Exact: '2' }] } }, Destination: { ServiceSubset: 'v2' } },
    ],
  });
  await untilServedBy(envoy, port, 'ver-1', { host: 'ver', count: 12 });
  for (let i = 0; i < 8; i++) assert.equal((await get('ver', '/', { headers: { 'x-version': '2' } })).body, 'ver-2');
  const held = await envoyHolds(envoy);
  assert.ok('v1.ver' in held.clusters && 'v2.ver' in held.clusters, `subset clusters: ${Object.keys(held.clusters)}`);
  // A splitter over the resolver's subsets: the default route now spreads over both.
  await put({
    Kind: 'service-splitter',
    Name: 'ver',
    Splits: [
      { Weight: 50, ServiceSubset: 'v1' },
      { Weight: 50, ServiceSubset: 'v2' },
    ],
  });
  await untilServedBy(envoy, port, ['ver-1', 'ver-2'], { host: 'ver', count: 16 });
});

test('service-resolver: a redirect sends traffic to another service; failover when every primary instance is critical; connect timeout', async () => {
  await register('new', await backend('new-1'));
  await put({ Kind: 'service-resolver', Name: 'old', Redirect: { Service: 'new' } });
  await untilServedBy(envoy, port, 'new-1', { host: 'old' });

  const p = await backend('primary-1');
  await register('primary', p);
  await register('backup', await backend('backup-1'));
  await put({
    Kind: 'service-resolver',
    Name: 'primary',
    ConnectTimeout: '250ms',
    Failover: { '*': { Service: 'backup' } },
  });
  await untilServedBy(envoy, port, 'primary-1', { host: 'primary' });
  await hubCall(hub.httpUrl, 'PUT', `/v1/agent/check/fail/${p.name}-check`);
  await untilServedBy(envoy, port, 'backup-1', { host: 'primary' });
  await hubCall(hub.httpUrl, 'PUT', `/v1/agent/check/pass/${p.name}-check`);
  await untilServedBy(envoy, port, 'primary-1', { host: 'primary' });
  const cluster = (await envoyHolds(envoy)).clusters['primary'] as Record<string, unknown>;
  assert.equal(cluster['connectTimeout'], '0.250s');
});

test('service-resolver: Failover keyed per subset — a subset fails over to its own entry, others to "*"', async () => {
  const v1 = await backend('tier-v1');
  const v2 = await backend('tier-v2');
  await register('tier', v1, { Meta: { version: 'v1' } });
  await register('tier', v2, { Meta: { version: 'v2' } });
  await register('tier-backup', await backend('tier-bk'));
  await put({ Kind: 'service-defaults', Name: 'tier', Protocol: 'http' });
  const resolver = {
    Kind: 'service-resolver',
    Name: 'tier',
    DefaultSubset: 'v1',
    Subsets: { v1: { Filter: 'Service.Meta.version == v1' }, v2: { Filter: 'Service.Meta.version == v2' } },
    Failover: { v1: { ServiceSubset: 'v2' }, '*': { Service: 'tier-backup' } },
  };
  const bad = await fetch(`${hub.httpUrl}/v1/config`, {
    method: 'PUT',
    body: JSON.stringify({ ...resolver, Failover: { v3: { Service: 'tier-backup' } } }),
  });
  assert.equal(bad.status, 400);
  assert.match(await bad.text(), /Failover\.v3: "v3" is neither "\*" nor a subset/);
  await put(resolver);
  await put({
    Kind: 'service-router',
    Name: 'tier',
    Routes: [
      { Match: { HTTP: { Header: [{ Name: 'x-version', Exact: '2' }] } }, Destination: { ServiceSubset: 'v2' } },
    ],
  });
  const v2Header = { headers: { 'x-version': '2' } };
  await untilServedBy(envoy, port, 'tier-v1', { host: 'tier' });
  // v1 (the default subset) down: its own failover entry sends it to subset v2, not to "*".
  await hubCall(hub.httpUrl, 'PUT', `/v1/agent/check/fail/${v1.name}-check`);
  await untilServedBy(envoy, port, 'tier-v2', { host: 'tier', count: 12 });
  await hubCall(hub.httpUrl, 'PUT', `/v1/agent/check/pass/${v1.name}-check`);
  await untilServedBy(envoy, port, 'tier-v1', { host: 'tier' });
  // v2 down: it has no entry of its own, so "*" sends it to tier-backup.
  await hubCall(hub.httpUrl, 'PUT', `/v1/agent/check/fail/${v2.name}-check`);
  await envoy.until(
    async () => (await get('tier', '/', v2Header)).body === 'tier-bk',
    'subset v2 failing over to tier-backup',
  );
  for (let i = 0; i < 8; i++) assert.equal((await get('tier', '/', v2Header)).body, 'tier-bk');
  assert.equal((await get('tier')).body, 'tier-v1', 'the default subset is unaffected');
});

test('service-defaults: protocol http2 reaches an HTTP/2-only backend, grpc carries a gRPC call; limits shed load; outlier detection ejects a failing instance', async () => {
  // An h2c-only backend: HTTP/1.1 to it fails, so a 200 proves Envoy speaks HTTP/2 upstream.
  const h2 = http2.createServer((req, res) => res.end(`h2 ${req.httpVersion}`));
  h2.listen(0, '127.0.0.1');
  await once(h2, 'listening');
  extra.push(() => new Promise((r) => h2.close(() => r(undefined))));
  await hubCall(hub.httpUrl, 'PUT', '/v1/agent/service/register', {
    ID: 'h2-1',
    Name: 'h2',
    Address: '127.0.0.1',
    Port: (h2.address() as { port: number }).port,
  });
  await put({ Kind: 'service-defaults', Name: 'h2', Protocol: 'http2' });
  await envoy.until(async () => (await get('h2')).body === 'h2 2.0', 'an HTTP/2 answer from the h2c backend');

  // protocol grpc: a gRPC client through the gateway (HTTP/2 in, HTTP/2 to the gRPC backend).
  const echo = await startEcho('grpc-echo-1');
  extra.push(() => echo.close());
  await hubCall(hub.httpUrl, 'PUT', '/v1/agent/service/register', {
    ID: 'grpc-echo-1',
    Name: 'gsvc',
    Address: '127.0.0.1',
    Port: echo.port,
  });
  await put({ Kind: 'service-defaults', Name: 'gsvc', Protocol: 'grpc' });
  const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), {
    'grpc.default_authority': 'gsvc',
  });
  extra.push(async () => client.close());
  const call = () =>
    new Promise<string>((resolve) =>
      client.makeUnaryRequest(
        ECHO_METHOD,
        (b: Buffer) => b,
        (b: Buffer) => b,
        Buffer.alloc(0),
        { deadline: Date.now() + 10_000 },
        (err, reply) => resolve(err ? `error ${err.code} ${err.details}` : reply!.toString()),
      ),
    );
  let last = '';
  await envoy.until(
    async () => (last = await call()) === 'grpc-echo-1',
    () => `a gRPC call through Envoy to the grpc service (last: ${last})`,
  );
  const gcluster = (await envoyHolds(envoy)).clusters['gsvc'] as any;
  assert.ok(
    gcluster.typedExtensionProtocolOptions?.['envoy.extensions.upstreams.http.v3.HttpProtocolOptions']
      ?.explicitHttpConfig?.http2ProtocolOptions,
    'protocol grpc: HTTP/2 upstream in the config dump',
  );

  // The first requests are held until the burst is in; after that every request is answered at once.
  const gate: (() => void)[] = [];
  let open = false;
  const held = await backend('limited-1', (_req, res) => {
    if (open) return false;
    gate.push(() => res.end('limited-1'));
    return true;
  });
  await register('limited', held);
  await put({
    Kind: 'service-defaults',
    Name: 'limited',
    Protocol: 'http',
    UpstreamConfig: { Defaults: { Limits: { MaxConnections: 1, MaxPendingRequests: 1, MaxConcurrentRequests: 1 } } },
  });
  await envoy.until(
    async () => ((await envoyHolds(envoy)).clusters['limited'] as any)?.circuitBreakers,
    'limits in the config dump',
  );
  const burst = Promise.all(Array.from({ length: 8 }, () => get('limited', '/')));
  await envoy.until(() => gate.length >= 1, 'the first request held');
  await envoy.until(
    async () => ((await envoy.stats()).get('cluster.limited.upstream_rq_pending_overflow') ?? 0) >= 1,
    'Envoy shedding the burst',
  );
  open = true;
  while (gate.length > 0) gate.shift()!();
  const answers = await burst;
  const shed = answers.filter((a) => a.status === 503 && a.headers['x-envoy-overloaded'] === 'true').length;
  assert.ok(
    shed >= 1,
    `requests over the limit are shed with 503 + x-envoy-overloaded: ${answers.map((a) => a.status)}`,
  );

  const bad = await backend('od-bad', (_req, res) => {
    res.statusCode = 500;
    res.end('od-bad');
    return true;
  });
  await register('od', bad);
  await register('od', await backend('od-good'));
  await put({
    Kind: 'service-defaults',
    Name: 'od',
    Protocol: 'http',
    UpstreamConfig: {
      Defaults: {
        PassiveHealthCheck: {
          Interval: '1s',
          MaxFailures: 2,
          EnforcingConsecutive5xx: 100,
          MaxEjectionPercent: 100,
          BaseEjectionTime: '60s',
        },
      },
    },
  });
  await envoy.until(
    async () => ((await envoyHolds(envoy)).clusters['od'] as any)?.outlierDetection,
    'outlier detection in the config dump',
  );
  await untilServedBy(envoy, port, ['od-good', '500:od-bad'], { host: 'od' });
  // Two 5xx in a row eject od-bad; from then on only od-good answers.
  await untilServedBy(envoy, port, 'od-good', { host: 'od', count: 20 });
  const stats = await envoy.stats();
  assert.ok(
    (stats.get('cluster.od.outlier_detection.ejections_enforced_consecutive_5xx') ?? 0) >= 1,
    'Envoy counted the ejection',
  );
});

test('every chain above went through without a rejected update or a NACK', async () => {
  const rejected = await envoy.rejectedUpdates();
  assert.equal(rejected.total, 0, JSON.stringify(rejected.by));
  assert.equal(await hubNacks(hub), 0);
});
