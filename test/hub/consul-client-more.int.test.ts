// The `consul` npm client, unchanged, on the endpoints it wraps beyond the
// basics: catalog datacenters, connect nodes and node services, agent members,
// check register/deregister, node and service maintenance, and its `filter`,
// `node-meta` and `near` options (a bad filter is an error the client sees).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import Consul from 'consul';
import type { Hub } from '../../src/hub';
import { startHub } from '../helpers/hub';

let hub: Hub;
let consul: Consul;
before(async () => {
  hub = await startHub({ nodeName: 'npm-hub', datacenter: 'dc3' });
  consul = new Consul({ host: '127.0.0.1', port: hub.httpPort });
  await consul.agent.service.register({
    name: 'web',
    id: 'web-1',
    port: 8080,
    tags: ['v1'],
    check: { ttl: '10m', status: 'passing' },
  } as never);
  await consul.agent.service.register({
    name: 'web',
    id: 'web-2',
    port: 8081,
    tags: ['v2'],
    check: { ttl: '10m', status: 'passing' },
  } as never);
  // The client's catalog.register has no proxy fields; register the proxy as Consul's JSON.
  const res = await fetch(`${hub.httpUrl}/v1/catalog/register`, {
    method: 'PUT',
    body: JSON.stringify({
      Node: 'edge-1',
      Address: '10.9.0.1',
      NodeMeta: { zone: 'b' },
      Service: {
        ID: 'web-proxy',
        Service: 'web-sidecar-proxy',
        Port: 21000,
        Kind: 'connect-proxy',
        Proxy: { DestinationServiceName: 'web' },
      },
    }),
  });
  assert.equal(res.status, 200, await res.text());
});
after(async () => {
  consul.destroy();
  await hub.close();
});

test('catalog.datacenters, catalog.connect.nodes and catalog.node.services', async () => {
  assert.deepEqual(await consul.catalog.datacenters(), ['dc3']);
  const proxies = (await consul.catalog.connect.nodes('web')) as Array<{ ServiceID: string; Node: string }>;
  assert.deepEqual(
    proxies.map((p) => [p.Node, p.ServiceID]),
    [['edge-1', 'web-proxy']],
  );
  const node = (await consul.catalog.node.services('npm-hub')) as { Services: Record<string, unknown> };
  assert.deepEqual(Object.keys(node.Services).sort(), ['web-1', 'web-2']);
});

test('agent.members', async () => {
  const members = (await consul.agent.members()) as Array<{ Name: string; Status: number }>;
  assert.deepEqual(
    members.map((m) => [m.Name, m.Status]),
    [['npm-hub', 1]],
  );
});

test('agent.check.register, list, pass, deregister', async () => {
  await consul.agent.check.register({ name: 'disk', id: 'disk-check', ttl: '5m', notes: 'free space' } as never);
  await consul.agent.check.register({ name: 'web-1 extra', id: 'web-1-extra', serviceid: 'web-1', ttl: '5m' } as never);
  let checks = (await consul.agent.check.list()) as Record<
    string,
    { Status: string; ServiceName: string; Notes: string }
  >;
  assert.equal(checks['disk-check']?.Status, 'critical');
  assert.equal(checks['disk-check']?.Notes, 'free space');
  assert.equal(checks['web-1-extra']?.ServiceName, 'web');
  await consul.agent.check.pass('disk-check');
  checks = (await consul.agent.check.list()) as typeof checks;
  assert.equal(checks['disk-check']?.Status, 'passing');
  await consul.agent.check.deregister('disk-check');
  await consul.agent.check.deregister('web-1-extra');
  checks = (await consul.agent.check.list()) as typeof checks;
  assert.equal(checks['disk-check'], undefined);
  await assert.rejects(
    consul.agent.check.deregister('disk-check'),
    (err: Error & { response?: { statusCode: number; body: unknown } }) => {
      assert.equal(err.response?.statusCode, 404);
      assert.match(String(err.response?.body), /^Unknown check ID "disk-check"/);
      return true;
    },
  );
});

test('agent.maintenance and agent.service.maintenance take instances out of passing health', async () => {
  const passing = async () =>
    ((await consul.health.service({ service: 'web', passing: true })) as Array<{ Service: { ID: string } }>)
      .map((c) => c.Service.ID)
      .sort();
  assert.deepEqual(await passing(), ['web-1', 'web-2']);
  await consul.agent.service.maintenance({ id: 'web-1', enable: true, reason: 'upgrade' } as never);
  assert.deepEqual(await passing(), ['web-2']);
  await consul.agent.maintenance({ enable: true } as never);
  assert.deepEqual(await passing(), []);
  await consul.agent.maintenance(false);
  await consul.agent.service.maintenance({ id: 'web-1', enable: false } as never);
  assert.deepEqual(await passing(), ['web-1', 'web-2']);
  await assert.rejects(
    consul.agent.service.maintenance({ id: 'nope', enable: true } as never),
    /No service registered with ID "nope"/,
  );
});

test('filter, node-meta and near options through the client; a bad filter is an error', async () => {
  const v2 = (await consul.health.service({ service: 'web', filter: 'v2 in Service.Tags' } as never)) as Array<{
    Service: { ID: string };
  }>;
  assert.deepEqual(
    v2.map((c) => c.Service.ID),
    ['web-2'],
  );
  const nodes = (await consul.catalog.node.list({ 'node-meta': ['zone:b'] } as never)) as Array<{ Node: string }>;
  assert.deepEqual(
    nodes.map((n) => n.Node),
    ['edge-1'],
  );
  const near = (await consul.catalog.node.list({ near: '_agent' } as never)) as Array<{ Node: string }>;
  assert.equal(near[0]!.Node, 'npm-hub');
  const services = (await consul.agent.service.list({ filter: 'Port == 8081' } as never)) as Record<string, unknown>;
  assert.deepEqual(Object.keys(services), ['web-2']);
  await assert.rejects(
    consul.catalog.service.nodes({ service: 'web', filter: 'ServicePort == nope' } as never),
    (err: Error & { response?: { statusCode: number; body: unknown } }) => {
      assert.equal(err.response?.statusCode, 400);
      assert.match(
        String(err.response?.body),
        /^Failed to create boolean expression evaluator: Failed to coerce value "nope" for selector "ServicePort"/,
      );
      return true;
    },
  );
});
