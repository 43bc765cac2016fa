// Sidecar and connect-proxy registrations as Consul takes them: the
// Connect.SidecarService shorthand (name, ID, inherited tags/meta, Proxy
// defaults, a port from the sidecar range, the two default checks), proxies
// registered on their own, what catalog and health show, and every option the
// hub does not implement refused with the field named.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Hub } from '../../src/hub';
import { call, startHub } from '../helpers/hub';
import { letTimePass, until as poll } from '../helpers/until';

let hub: Hub;

async function ok(method: string, url: string, body?: unknown) {
  const res = await call(hub, method, url, body);
  assert.equal(res.status, 200, `${method} ${url}: ${res.text}`);
  return res;
}

async function refused(method: string, url: string, body: unknown, field: RegExp) {
  const res = await call(hub, method, url, body);
  assert.equal(res.status, 400, `${method} ${url} should be refused: ${res.text}`);
  assert.match(res.text, field);
  return res;
}

const services = async () => (await ok('GET', '/v1/agent/services')).json as Record<string, any>;

before(async () => {
  hub = await startHub({ nodeName: 'mesh-node', datacenter: 'dc1', sidecarMinPort: 21000, sidecarMaxPort: 21002 });
});
after(() => hub.close());

test('Connect.SidecarService {} registers <id>-sidecar-proxy as Consul does: kind, name, inherited tags/meta, Proxy defaults, port 21000, default checks', async () => {
  await ok('PUT', '/v1/agent/service/register', {
    Name: 'web',
    ID: 'web1',
    Port: 8080,
    Tags: ['v1'],
    Meta: { team: 'a' },
    Connect: { SidecarService: {} },
  });
  const all = await services();
  assert.equal(all['web1'].Connect?.SidecarService, undefined, 'the shorthand is not stored on the parent');
  const sidecar = all['web1-sidecar-proxy'];
  assert.ok(sidecar, 'sidecar registered');
  assert.equal(sidecar.Kind, 'connect-proxy');
  assert.equal(sidecar.Service, 'web-sidecar-proxy');
  assert.equal(sidecar.Port, 21000);
  assert.deepEqual(sidecar.Tags, ['v1']);
  assert.deepEqual(sidecar.Meta, { team: 'a' });
  assert.deepEqual(sidecar.Proxy, {
    DestinationServiceName: 'web',
    DestinationServiceID: 'web1',
    LocalServiceAddress: '127.0.0.1',
    LocalServicePort: 8080,
    Mode: '',
    MeshGateway: {},
    Expose: {},
  });
  const checks = (await ok('GET', '/v1/health/checks/web-sidecar-proxy')).json as any[];
  assert.deepEqual(checks.map((c) => [c.CheckID, c.Name, c.Type]).sort(), [
    ['service:web1-sidecar-proxy:1', 'Connect Sidecar Listening', 'tcp'],
    ['service:web1-sidecar-proxy:2', 'Connect Sidecar Aliasing web1', 'alias'],
  ]);
  const tcp = checks.find((c) => c.Type === 'tcp');
  assert.equal(tcp.Definition.TCP, '127.0.0.1:21000');
  assert.equal(tcp.Interval, '10s');
  // Catalog and health show the proxy under the service it fronts (ServiceHealthConnect).
  const connect = (await ok('GET', '/v1/health/connect/web')).json as any[];
  assert.deepEqual(
    connect.map((c) => c.Service.ID),
    ['web1-sidecar-proxy'],
  );
  const catalogConnect = (await ok('GET', '/v1/catalog/connect/web')).json as any[];
  assert.deepEqual(
    catalogConnect.map((c) => [c.ServiceID, c.ServiceKind, c.ServicePort]),
    [['web1-sidecar-proxy', 'connect-proxy', 21000]],
  );
  assert.deepEqual((await ok('GET', '/v1/health/connect/web-sidecar-proxy')).json, []);
});

test('sidecar ports: a re-registration keeps its port, the next sidecar takes the lowest free one, a full range is a 400', async () => {
  await ok('PUT', '/v1/agent/service/register', {
    Name: 'web',
    ID: 'web1',
    Port: 8080,
    Connect: { SidecarService: {} },
  });
  await ok('PUT', '/v1/agent/service/register', {
    Name: 'api',
    ID: 'api1',
    Port: 9090,
    Connect: { SidecarService: { Port: 21001 } },
  });
  await ok('PUT', '/v1/agent/service/register', { Name: 'db', ID: 'db1', Port: 5432, Connect: { SidecarService: {} } });
  let all = await services();
  assert.equal(all['web1-sidecar-proxy'].Port, 21000);
  assert.equal(all['api1-sidecar-proxy'].Port, 21001);
  assert.equal(all['db1-sidecar-proxy'].Port, 21002);
  const full = await call(hub, 'PUT', '/v1/agent/service/register', {
    Name: 'cache',
    Port: 6379,
    Connect: { SidecarService: {} },
  });
  assert.equal(full.status, 400);
  assert.match(
    full.text,
    /no port provided for sidecar_service and none left in the configured range \[21000, 21002\]/,
  );
  assert.equal((await services())['cache'], undefined, 'a refused registration changes nothing');
  // Deregistering a parent takes its sidecar along; its port is free again.
  await ok('PUT', '/v1/agent/service/deregister/api1');
  all = await services();
  assert.equal(all['api1'], undefined);
  assert.equal(all['api1-sidecar-proxy'], undefined);
  await ok('PUT', '/v1/agent/service/register', { Name: 'cache', Port: 6379, Connect: { SidecarService: {} } });
  assert.equal((await services())['cache-sidecar-proxy'].Port, 21001);
  await ok('PUT', '/v1/agent/service/deregister/cache');
  await ok('PUT', '/v1/agent/service/deregister/db1');
});

test('concurrent sidecar registrations never share a port (apply refuses a taken port, the route picks again)', async () => {
  const names = ['c1', 'c2'];
  await Promise.all(
    names.map((n, i) =>
      ok('PUT', '/v1/agent/service/register', { Name: n, Port: 7000 + i, Connect: { SidecarService: {} } }),
    ),
  );
  const all = await services();
  const ports = names.map((n) => all[`${n}-sidecar-proxy`].Port);
  assert.equal(new Set([...ports, all['web1-sidecar-proxy'].Port]).size, 3, `ports ${ports}`);
  for (const n of names) await ok('PUT', `/v1/agent/service/deregister/${n}`);
});

test('a SidecarService with its own port, checks, proxy config and upstreams keeps them (no default checks)', async () => {
  await ok('PUT', '/v1/agent/service/register', {
    Name: 'front',
    ID: 'front1',
    Port: 3000,
    Connect: {
      SidecarService: {
        Port: 25000,
        Check: { Name: 'envoy ready', TTL: '30s' },
        Proxy: {
          LocalServiceAddress: '127.0.0.2',
          Config: { protocol: 'http' },
          Upstreams: [
            { DestinationName: 'web', LocalBindPort: 9191, Config: { protocol: 'http' } },
            { DestinationName: 'db', LocalBindAddress: '127.0.0.3', LocalBindPort: 9192 },
          ],
        },
      },
    },
  });
  const sidecar = (await services())['front1-sidecar-proxy'];
  assert.equal(sidecar.Port, 25000);
  assert.equal(sidecar.Proxy.LocalServiceAddress, '127.0.0.2');
  assert.equal(sidecar.Proxy.LocalServicePort, 3000);
  assert.deepEqual(sidecar.Proxy.Config, { protocol: 'http' });
  assert.deepEqual(sidecar.Proxy.Upstreams, [
    {
      DestinationType: 'service',
      DestinationName: 'web',
      Datacenter: '',
      LocalBindAddress: '',
      LocalBindPort: 9191,
      Config: { protocol: 'http' },
      MeshGateway: {},
    },
    {
      DestinationType: 'service',
      DestinationName: 'db',
      Datacenter: '',
      LocalBindAddress: '127.0.0.3',
      LocalBindPort: 9192,
      MeshGateway: {},
    },
  ]);
  const checks = (await ok('GET', '/v1/health/checks/front-sidecar-proxy')).json as any[];
  assert.deepEqual(
    checks.map((c) => [c.CheckID, c.Type]),
    [['service:front1-sidecar-proxy', 'ttl']],
  );
  await ok('PUT', '/v1/agent/service/deregister/front1');
});

test('the alias check follows the parent: passing with it, critical when it fails', async () => {
  await ok('PUT', '/v1/agent/service/register', {
    Name: 'pay',
    ID: 'pay1',
    Port: 4000,
    Check: { TTL: '30s' },
    Connect: { SidecarService: { Port: 25001 } },
  });
  const alias = async () =>
    ((await ok('GET', '/v1/health/checks/pay-sidecar-proxy')).json as any[]).find((c) => c.Type === 'alias');
  const until = (status: string) =>
    poll(async () => {
      const c = await alias();
      return c.Status === status && c;
    }, `the alias check to become ${status}`);
  await until('critical'); // the parent's TTL check starts critical
  await ok('PUT', '/v1/agent/check/pass/service:pay1');
  await until('passing');
  await ok('PUT', '/v1/agent/check/warn/service:pay1');
  await until('warning');
  await ok('PUT', '/v1/agent/check/fail/service:pay1');
  await until('critical');
  await ok('PUT', '/v1/agent/service/deregister/pay1');
});

test('a connect-proxy registered on its own through the catalog, with upstreams', async () => {
  await ok('PUT', '/v1/catalog/register', {
    Node: 'n1',
    Address: '10.0.0.1',
    Service: {
      ID: 'api-proxy-1',
      Service: 'api-proxy',
      Kind: 'connect-proxy',
      Port: 20000,
      Proxy: {
        DestinationServiceName: 'api',
        DestinationServiceID: 'api-1',
        LocalServicePort: 9000,
        Upstreams: [{ DestinationName: 'db', LocalBindPort: 7000 }],
      },
    },
  });
  const [proxy] = (await ok('GET', '/v1/catalog/connect/api')).json as any[];
  assert.equal(proxy.ServiceID, 'api-proxy-1');
  assert.equal(proxy.ServiceProxy.DestinationServiceID, 'api-1');
  assert.equal(proxy.ServiceProxy.Upstreams[0].DestinationName, 'db');
  const [health] = (await ok('GET', '/v1/health/connect/api')).json as any[];
  assert.equal(health.Service.Proxy.LocalServicePort, 9000);
  await ok('PUT', '/v1/catalog/deregister', { Node: 'n1' });
});

test('what the hub does not implement is refused, naming the field', async () => {
  const proxy = (p: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    Node: 'n1',
    Address: '10.0.0.1',
    Service: {
      Service: 'p',
      Kind: 'connect-proxy',
      Port: 20000,
      Proxy: { DestinationServiceName: 'api', ...p },
      ...extra,
    },
  });
  const reg = '/v1/catalog/register';
  await refused(
    'PUT',
    reg,
    proxy({ DestinationServiceName: '' }),
    /Service\.Proxy\.DestinationServiceName: is required/,
  );
  await refused('PUT', reg, proxy({ DestinationServiceName: '*' }), /must not be a wildcard/);
  await refused(
    'PUT',
    reg,
    proxy({ DestinationServiceName: 'c/d' }),
    /Service\.Proxy\.DestinationServiceName: "c\/d" cannot be in the mesh: a certificate's SPIFFE ID carries only/,
  );
  await refused('PUT', reg, proxy({}, { Port: 0 }), /Service\.Port: must be set for a connect-proxy/);
  await refused('PUT', reg, proxy({ Mode: 'transparent' }), /Service\.Proxy\.Mode: not supported/);
  await refused(
    'PUT',
    reg,
    proxy({ TransparentProxy: { OutboundListenerPort: 15001 } }),
    /Service\.Proxy\.TransparentProxy: not supported/,
  );
  await refused('PUT', reg, proxy({ LocalServiceSocketPath: '/tmp/s' }), /LocalServiceSocketPath: not supported/);
  await refused('PUT', reg, proxy({ LocalServiceAddress: 'localhost' }), /LocalServiceAddress: must be an IP address/);
  await refused(
    'PUT',
    reg,
    proxy({ Expose: { Paths: [{ Path: '/health', ListenerPort: 21500 }] } }),
    /Service\.Proxy\.Expose: not supported/,
  );
  await refused(
    'PUT',
    reg,
    proxy({ MeshGateway: { Mode: 'local' } }),
    /Service\.Proxy\.MeshGateway\.Mode: not supported/,
  );
  await refused(
    'PUT',
    reg,
    proxy({ Config: { envoy_public_listener_json: '{}' } }),
    /Service\.Proxy\.Config\.envoy_public_listener_json: not supported/,
  );
  await refused('PUT', reg, proxy({ Config: { protocol: 'udp' } }), /Service\.Proxy\.Config\.protocol: must be one of/);
  const up = (u: Record<string, unknown>) =>
    proxy({ Upstreams: [{ DestinationName: 'db', LocalBindPort: 7000, ...u }] });
  await refused(
    'PUT',
    reg,
    up({ DestinationType: 'prepared_query' }),
    /Upstreams\[0\]\.DestinationType: not supported/,
  );
  await refused('PUT', reg, up({ DestinationPeer: 'other' }), /Upstreams\[0\]\.DestinationPeer: not supported/);
  await refused('PUT', reg, up({ Datacenter: 'dc2' }), /Upstreams\[0\]\.Datacenter: unknown datacenter "dc2"/);
  await refused('PUT', reg, up({ LocalBindPort: 0 }), /Upstreams\[0\]\.LocalBindPort: is required/);
  await refused('PUT', reg, up({ LocalBindSocketPath: '/tmp/u' }), /LocalBindSocketPath: not supported/);
  await refused(
    'PUT',
    reg,
    up({ Config: { envoy_cluster_json: '{}' } }),
    /Upstreams\[0\]\.Config\.envoy_cluster_json: not supported/,
  );
  await refused(
    'PUT',
    reg,
    proxy({
      Upstreams: [
        { DestinationName: 'db', LocalBindPort: 7000 },
        { DestinationName: 'db', LocalBindPort: 7001 },
      ],
    }),
    /Upstreams\[1\]\.DestinationName: upstreams cannot contain duplicates/,
  );
  await refused(
    'PUT',
    reg,
    proxy({
      Upstreams: [
        { DestinationName: 'db', LocalBindPort: 7000 },
        { DestinationName: 'kv', LocalBindPort: 7000 },
      ],
    }),
    /Upstreams\[1\]\.LocalBindPort: .*"127\.0\.0\.1:7000" is specified twice/,
  );
  await refused(
    'PUT',
    reg,
    proxy({}, { Connect: { Native: true } }),
    /Service\.Connect\.Native: a proxy cannot also be Connect native/,
  );
  await refused(
    'PUT',
    reg,
    { Node: 'n1', Address: '10.0.0.1', Service: { Service: 's', Port: 1, Connect: { SidecarService: {} } } },
    /Service\.Connect\.SidecarService: sidecar services are registered through the agent/,
  );
  const agent = '/v1/agent/service/register';
  await refused(
    'PUT',
    agent,
    { Name: 's', Port: 1, Connect: { SidecarService: { ID: 'x' } } },
    /Connect\.SidecarService\.ID: a SidecarService cannot specify an ID/,
  );
  await refused(
    'PUT',
    agent,
    { Name: 's', Port: 1, Connect: { SidecarService: { Connect: { SidecarService: {} } } } },
    /cannot have a nested SidecarService/,
  );
  await refused(
    'PUT',
    agent,
    { Name: 's', Port: 1, Connect: { SidecarService: { Proxy: { Upstreams: [{ DestinationName: 'db' }] } } } },
    /Connect\.SidecarService\.Proxy\.Upstreams\[0\]\.LocalBindPort: is required/,
  );
  await refused(
    'PUT',
    agent,
    { Name: 'a b', Port: 1, Connect: { SidecarService: {} } },
    /Name: "a b" cannot be in the mesh/,
  );
  await refused('PUT', agent, { Name: 'a b', Port: 1, Connect: { Native: true } }, /Name: "a b" cannot be in the mesh/);
  await refused(
    'PUT',
    agent,
    { Name: 'gw', Kind: 'ingress-gateway', Port: 1, Connect: { SidecarService: {} } },
    /a ingress-gateway cannot have a sidecar service/,
  );
  const nodes = (await ok('GET', '/v1/catalog/nodes')).json as any[];
  assert.ok(!nodes.some((n) => n.Node === 'n1'), 'refused registrations left nothing behind');
});

test('GET /v1/agent/service/:id?hash= of a proxy wakes on a proxy-defaults change (its answer merges central config)', {
  timeout: 90_000,
}, async () => {
  await ok('PUT', '/v1/agent/service/register', {
    Name: 'hashy',
    ID: 'hashy1',
    Port: 8085,
    Connect: { SidecarService: { Port: 21001 } },
  });
  const first = (await ok('GET', '/v1/agent/service/hashy1-sidecar-proxy')).json as Record<string, any>;
  assert.equal(first.Proxy.Config, undefined, 'no central config yet');
  const blocked = call(hub, 'GET', `/v1/agent/service/hashy1-sidecar-proxy?hash=${first.ContentHash}&wait=10m`);
  // Either order passes with the wake in place; parked first, the read needs it (without, it waits
  // out its 10 minutes and the test's hang guard fails it).
  await letTimePass(200, 'the blocking read to park');
  await ok('PUT', '/v1/config', { Kind: 'proxy-defaults', Name: 'global', Config: { protocol: 'http' } });
  try {
    const woke = (await blocked).json as Record<string, any>;
    assert.equal(woke.Proxy.Config?.protocol, 'http', 'the merged answer');
    assert.notEqual(woke.ContentHash, first.ContentHash);
  } finally {
    await ok('DELETE', '/v1/config/proxy-defaults/global');
    await ok('PUT', '/v1/agent/service/deregister/hashy1');
  }
});
