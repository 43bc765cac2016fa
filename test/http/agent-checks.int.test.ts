// /v1/agent/check/register and /deregister, node and service maintenance:
// Consul's shapes, defaults and refusals; a refused request writes nothing.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Hub } from '../../src/hub';
import { call, startHub } from '../helpers/hub';

let hub: Hub;

async function ok(method: string, url: string, body?: unknown) {
  const res = await call(hub, method, url, body);
  assert.equal(res.status, 200, `${method} ${url}: ${res.text}`);
  return res;
}

/** A request that must be refused with `status` and leave the log as it was. */
async function refused(method: string, url: string, body: unknown, status: number, text: RegExp) {
  const before = hub.catalog.lastIndex();
  const res = await call(hub, method, url, body);
  assert.equal(res.status, status, `${method} ${url}: ${res.text}`);
  assert.match(res.text, text);
  assert.equal(hub.catalog.lastIndex(), before, 'a refused request writes nothing');
}

before(async () => {
  hub = await startHub({ nodeName: 'hub-node' });
  await ok('PUT', '/v1/agent/service/register', {
    Name: 'web',
    ID: 'web-1',
    Port: 8080,
    Check: { TTL: '10m', Status: 'passing' },
  });
});
after(() => hub.close());

test('check register: every kind the hub runs or stores, with Consul defaults', async () => {
  const kinds: Array<[Record<string, unknown>, string]> = [
    [{ TTL: '30s' }, 'ttl'],
    [{ HTTP: 'http://127.0.0.1:9/health', Interval: '10s', Method: 'HEAD', Header: { 'X-A': ['1'] } }, 'http'],
    [{ TCP: '127.0.0.1:9', Interval: '10s', Timeout: '1s' }, 'tcp'],
    [{ GRPC: '127.0.0.1:9/my.Service', Interval: '10s' }, 'grpc'],
    [{ H2PING: '127.0.0.1:9', Interval: '10s' }, 'h2ping'],
    [{ UDP: '127.0.0.1:9', Interval: '10s' }, 'udp'],
    [{ Args: ['/bin/true'], Interval: '10s' }, 'script'],
    [{ AliasService: 'web-1' }, 'alias'],
  ];
  for (const [definition, type] of kinds) {
    await ok('PUT', '/v1/agent/check/register', { Name: `${type} check`, ...definition });
  }
  const checks = (await ok('GET', '/v1/agent/checks')).json;
  for (const [, type] of kinds) {
    const check = checks[`${type} check`];
    assert.ok(check, `${type} check registered under its name (ID defaults to Name)`);
    assert.equal(check.Type, type);
    assert.equal(check.Status, 'critical', 'a new check starts critical');
    assert.equal(check.Node, 'hub-node');
  }
  assert.equal(checks['http check'].Definition.Method, 'HEAD');
  assert.equal(checks['tcp check'].Timeout, '1s');
  for (const [, type] of kinds) await ok('PUT', `/v1/agent/check/deregister/${encodeURIComponent(`${type} check`)}`);
});

test('a check on a service carries its name and tags; pass, then deregister', async () => {
  await ok('PUT', '/v1/agent/check/register', {
    ID: 'web-extra',
    Name: 'extra',
    ServiceID: 'web-1',
    TTL: '5m',
    Notes: 'n',
    Status: 'warning',
  });
  const check = (await ok('GET', '/v1/agent/checks')).json['web-extra'];
  assert.deepEqual([check.ServiceID, check.ServiceName, check.Status, check.Notes], ['web-1', 'web', 'warning', 'n']);
  // The instance is not passing while one of its checks warns.
  assert.deepEqual((await ok('GET', '/v1/health/service/web?passing')).json, []);
  await ok('PUT', '/v1/agent/check/pass/web-extra');
  assert.equal((await ok('GET', '/v1/health/service/web?passing')).json.length, 1);
  await ok('PUT', '/v1/agent/check/deregister/web-extra');
  assert.equal((await ok('GET', '/v1/agent/checks')).json['web-extra'], undefined);
});

test('check register and deregister refusals', async () => {
  await refused('PUT', '/v1/agent/check/register', { TTL: '10s' }, 400, /^Name: Missing check name$/);
  await refused(
    'PUT',
    '/v1/agent/check/register',
    { Name: 'x', ServiceID: 'nope', TTL: '10s' },
    400,
    /ServiceID "nope" does not exist/,
  );
  await refused(
    'PUT',
    '/v1/agent/check/register',
    { Name: 'x', HTTP: 'http://127.0.0.1:1/' },
    400,
    /^Interval: is required for a HTTP check$/,
  );
  await refused(
    'PUT',
    '/v1/agent/check/register',
    { Name: 'x', TTL: '10s', HTTP: 'http://127.0.0.1:1/', Interval: '1s' },
    400,
    /only one of TTL, HTTP/,
  );
  await refused(
    'PUT',
    '/v1/agent/check/register',
    { Name: 'x', Status: 'sick', TTL: '10s' },
    400,
    /^Status: must be one of/,
  );
  await refused(
    'PUT',
    '/v1/agent/check/register',
    { Name: 'x', TCP: 'no-port', Interval: '1s' },
    400,
    /^Check\.TCP: must be host:port, got "no-port"$/,
  );
  // Only loopback (and --check-allow-cidr) may be probed.
  await refused(
    'PUT',
    '/v1/agent/check/register',
    { Name: 'x', HTTP: 'http://192.0.2.7/health', Interval: '1s' },
    400,
    /^Check\.HTTP: "192\.0\.2\.7" \(192\.0\.2\.7\) is not an address this hub may probe: only loopback/,
  );
  await refused(
    'PUT',
    '/v1/agent/service/register',
    { Name: 'api', Checks: [{ TTL: '1s' }, { GRPC: '198.51.100.1:50051', Interval: '1s' }] },
    400,
    /^Checks\[1\]\.GRPC: .* is not an address this hub may probe/,
  );
  await refused('PUT', '/v1/agent/check/deregister/nope', undefined, 404, /^Unknown check ID "nope"/);
});

test('--check-allow-cidr lets the operator allow other networks', async () => {
  const other = await startHub({ nodeName: 'allow-hub', checkAllowCidrs: ['192.0.2.0/24'] });
  try {
    const res = await call(other, 'PUT', '/v1/agent/check/register', {
      Name: 'lan',
      HTTP: 'http://192.0.2.7/health',
      Interval: '1h',
    });
    assert.equal(res.status, 200, res.text);
    const denied = await call(other, 'PUT', '/v1/agent/check/register', {
      Name: 'wan',
      TCP: '198.51.100.1:80',
      Interval: '1h',
    });
    assert.equal(denied.status, 400);
    assert.match(denied.text, /only loopback or 192\.0\.2\.0\/24/);
  } finally {
    await other.close();
  }
});

test('node maintenance: a critical _node_maintenance check takes every instance out; off removes it', async () => {
  await refused('PUT', '/v1/agent/maintenance', undefined, 400, /Missing value for enable/);
  await refused('PUT', '/v1/agent/maintenance?enable=maybe', undefined, 400, /Invalid value for enable: "maybe"/);
  await ok('PUT', '/v1/agent/maintenance?enable=true');
  const check = (await ok('GET', '/v1/agent/checks')).json._node_maintenance;
  assert.deepEqual(
    [check.Name, check.Status, check.ServiceID, check.Type],
    ['Node Maintenance Mode', 'critical', '', 'maintenance'],
  );
  assert.equal(
    check.Notes,
    'Maintenance mode is enabled for this node, but no reason was provided. This is a default message.',
  );
  assert.deepEqual((await ok('GET', '/v1/health/service/web?passing')).json, []);
  const health = await call(hub, 'GET', '/v1/agent/health/service/id/web-1?format=text');
  assert.deepEqual([health.status, health.text], [503, 'maintenance']);
  await ok('PUT', '/v1/agent/maintenance?enable=false');
  assert.equal((await ok('GET', '/v1/agent/checks')).json._node_maintenance, undefined);
  assert.equal((await ok('GET', '/v1/health/service/web?passing')).json.length, 1);
  // Turning it off again changes nothing and writes nothing.
  const index = hub.catalog.lastIndex();
  await ok('PUT', '/v1/agent/maintenance?enable=false');
  assert.equal(hub.catalog.lastIndex(), index);
});

test('service maintenance: _service_maintenance:<id> with the reason; unknown service is 404', async () => {
  await refused(
    'PUT',
    '/v1/agent/service/maintenance/nope?enable=true',
    undefined,
    404,
    /^No service registered with ID "nope"$/,
  );
  await refused('PUT', '/v1/agent/service/maintenance/web-1', undefined, 400, /Missing value for enable/);
  await ok('PUT', `/v1/agent/service/maintenance/web-1?enable=true&reason=${encodeURIComponent('deploying v2')}`);
  const check = (await ok('GET', '/v1/agent/checks')).json['_service_maintenance:web-1'];
  assert.deepEqual(
    [check.Name, check.Status, check.ServiceID, check.Notes],
    ['Service Maintenance Mode', 'critical', 'web-1', 'deploying v2'],
  );
  assert.deepEqual((await ok('GET', '/v1/health/service/web?passing')).json, []);
  await ok('PUT', '/v1/agent/service/maintenance/web-1?enable=false');
  assert.equal((await ok('GET', '/v1/health/service/web?passing')).json.length, 1);
});
