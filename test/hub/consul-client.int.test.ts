// The `consul` npm client, unchanged, against a real listening hub: agent
// service register with a TTL check, check pass, health read, catalog and
// status calls, a transaction, and config entries. The client has no
// config-entry API, so those go through its generic request methods
// (`_put`/`_get`, with the package's own body decoder).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import Consul from 'consul';
import type { Hub } from '../../src/hub';
import { startHub } from '../helpers/hub';

// The package's own response decoder, as its built-in methods use it.
const consulUtils = require('consul/lib/utils') as { body: unknown };

let hub: Hub;
let consul: Consul;
before(async () => {
  hub = await startHub({ nodeName: 'consul-client-hub' });
  consul = new Consul({ host: '127.0.0.1', port: hub.httpPort });
});
after(async () => {
  consul.destroy();
  await hub.close();
});

test('agent service register with a TTL check, pass it, health shows passing', async () => {
  await consul.agent.service.register({
    name: 'web',
    id: 'web1',
    port: 8080,
    tags: ['v1'],
    check: { ttl: '10m' },
  } as never);
  const services = (await consul.agent.service.list()) as Record<string, { Service: string; Port: number }>;
  assert.equal(services.web1?.Service, 'web');
  assert.equal(services.web1?.Port, 8080);

  let healthy = (await consul.health.service({ service: 'web', passing: true })) as unknown[];
  assert.equal(healthy.length, 0, 'a new TTL check starts critical');

  await consul.agent.check.pass({ id: 'service:web1', note: 'ok' });
  healthy = (await consul.health.service({ service: 'web', passing: true })) as Array<{
    Service: { ID: string };
    Checks: Array<{ Status: string; Output: string }>;
  }>;
  assert.equal(healthy.length, 1);
  const [instance] = healthy as Array<{ Service: { ID: string }; Checks: Array<{ Status: string; Output: string }> }>;
  assert.equal(instance!.Service.ID, 'web1');
  assert.equal(instance!.Checks[0]!.Status, 'passing');
  assert.equal(instance!.Checks[0]!.Output, 'ok');

  const checks = (await consul.agent.check.list()) as Record<string, { Status: string }>;
  assert.equal(checks['service:web1']?.Status, 'passing');
});

test('catalog, health state, status and agent self through the client', async () => {
  const services = (await consul.catalog.service.list()) as Record<string, string[]>;
  assert.deepEqual(services.web, ['v1']);
  const nodes = (await consul.catalog.service.nodes('web')) as Array<{ ServiceID: string; Node: string }>;
  assert.deepEqual(
    nodes.map((n) => [n.Node, n.ServiceID]),
    [['consul-client-hub', 'web1']],
  );
  const passing = (await consul.health.state('passing')) as Array<{ CheckID: string }>;
  assert.ok(passing.some((c) => c.CheckID === 'service:web1'));
  assert.equal(await consul.status.leader(), `127.0.0.1:${hub.grpcPort}`);
  assert.deepEqual(await consul.status.peers(), [`127.0.0.1:${hub.grpcPort}`]);
  const self = (await consul.agent.self()) as { Config: { NodeName: string } };
  assert.equal(self.Config.NodeName, 'consul-client-hub');
});

test('blocking query through the client returns after a change', async () => {
  const res = await fetch(`${hub.httpUrl}/v1/health/service/web`);
  const index = res.headers.get('x-consul-index')!;
  await res.arrayBuffer();
  const waiting = consul.health.service({ service: 'web', index, wait: '1m' } as never) as Promise<
    Array<{ Checks: Array<{ Status: string }> }>
  >;
  await consul.agent.check.warn('service:web1');
  const changed = await waiting;
  assert.equal(changed[0]!.Checks[0]!.Status, 'warning');
});

test('a transaction through the client', async () => {
  const result = (await consul.transaction.create([
    { Node: { Verb: 'set', Node: { Node: 'txn-node', Address: '10.3.0.1' } } },
    { Service: { Verb: 'set', Node: 'txn-node', Service: { ID: 'cache-1', Service: 'cache', Port: 6379 } } },
  ] as never)) as { Errors: unknown };
  assert.equal(result.Errors, null);
  const nodes = (await consul.catalog.service.nodes('cache')) as Array<{ Node: string }>;
  assert.deepEqual(
    nodes.map((n) => n.Node),
    ['txn-node'],
  );
});

test('config entry set and read through the client generic requests', async () => {
  const client = consul as unknown as {
    _put(req: object, next: unknown): Promise<unknown>;
    _get(req: object, next: unknown): Promise<unknown>;
  };
  const ok = await client._put(
    {
      name: 'config.set',
      path: '/config',
      type: 'json',
      body: { Kind: 'service-defaults', Name: 'web', Protocol: 'http' },
    },
    consulUtils.body,
  );
  assert.equal(ok, true);
  const entry = (await client._get(
    { name: 'config.get', path: '/config/{kind}/{name}', params: { kind: 'service-defaults', name: 'web' } },
    consulUtils.body,
  )) as {
    Kind: string;
    Protocol: string;
  };
  assert.equal(entry.Kind, 'service-defaults');
  assert.equal(entry.Protocol, 'http');
  await assert.rejects(
    client._get(
      { name: 'config.get', path: '/config/{kind}/{name}', params: { kind: 'service-defaults', name: 'missing' } },
      consulUtils.body,
    ),
    (err: Error & { statusCode?: number }) => {
      assert.match(err.message, /Config entry not found/);
      return true;
    },
  );
  await consul.agent.service.deregister('web1');
  assert.deepEqual(await consul.agent.service.list(), {});
});
