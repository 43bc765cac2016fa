// Property: any sequence of refused (or no-op) requests leaves the log length,
// the index and the state exactly as they were.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Hub } from '../../src/hub';
import { call, startHub } from '../helpers/hub';

let hub: Hub;
before(async () => {
  hub = await startHub({ nodeName: 'hub-prop' });
  const setup: Array<[string, string, unknown]> = [
    ['PUT', '/v1/catalog/register', { Node: 'n1', Address: '10.0.0.1', Service: { ID: 'web-1', Service: 'web', Port: 80 }, Checks: [{ CheckID: 'c1', Status: 'passing', ServiceID: 'web-1' }] }],
    ['PUT', '/v1/agent/service/register', { Name: 'api', ID: 'api-1', Port: 90, Check: { TTL: '10m' } }],
    ['PUT', '/v1/config', { Kind: 'service-defaults', Name: 'web', Protocol: 'http' }],
  ];
  for (const [method, url, body] of setup) assert.equal((await call(hub, method, url, body)).status, 200, url);
});
after(() => hub.close());

type Req = { method: string; url: string; body?: unknown };

const unknownId = fc.constantFrom('ghost', 'nope', 'service:ghost', 'c2', 'web-9');
const knownNode = fc.constantFrom('n1', 'hub-prop');
const staleIndex = fc.integer({ min: 5_000, max: 9_999 });

/** Requests the hub must refuse (4xx) or find to change nothing, whatever the order. */
const refused: fc.Arbitrary<Req> = fc.oneof(
  fc.tuple(fc.constantFrom('pass', 'warn', 'fail'), unknownId).map(([verb, id]) => ({ method: 'PUT', url: `/v1/agent/check/${verb}/${id}` })),
  unknownId.map((id) => ({ method: 'PUT', url: `/v1/agent/check/update/${id}`, body: { Status: 'passing', Output: 'x' } })),
  unknownId.map((id) => ({ method: 'PUT', url: `/v1/agent/service/deregister/${id}` })),
  unknownId.map((id) => ({ method: 'PUT', url: '/v1/catalog/deregister', body: { Node: id } })),
  fc.tuple(knownNode, unknownId, fc.boolean()).map(([node, id, svc]) => ({
    method: 'PUT',
    url: '/v1/catalog/deregister',
    body: svc ? { Node: node, ServiceID: id } : { Node: node, CheckID: id },
  })),
  fc.tuple(staleIndex, fc.boolean()).map(([index, withSet]) => ({
    method: 'PUT',
    url: '/v1/txn',
    body: [
      ...(withSet ? [{ Node: { Verb: 'set', Node: { Node: 'new-node', Address: '10.9.9.9' } } }] : []),
      { Service: { Verb: 'cas', Node: 'n1', Service: { ID: 'web-1', Service: 'web', Port: 81, ModifyIndex: index } } },
    ],
  })),
  fc.tuple(unknownId, staleIndex).map(([id, index]) => ({ method: 'PUT', url: '/v1/txn', body: [{ Node: { Verb: 'delete-cas', Node: { Node: id, ModifyIndex: index } } }] })),
  staleIndex.map((cas) => ({ method: 'PUT', url: `/v1/config?cas=${cas}`, body: { Kind: 'service-defaults', Name: 'web', Protocol: 'grpc' } })),
  fc.constant({ method: 'PUT', url: '/v1/config?cas=0', body: { Kind: 'service-defaults', Name: 'web', Protocol: 'grpc' } }),
  staleIndex.map((cas) => ({ method: 'DELETE', url: `/v1/config/service-defaults/web?cas=${cas}` })),
  unknownId.map((name) => ({ method: 'DELETE', url: `/v1/config/service-resolver/${name}` })),
  // Changes nothing: the same service and config entry again.
  fc.constant({ method: 'PUT', url: '/v1/catalog/register', body: { Node: 'n1', Address: '10.0.0.1', Service: { ID: 'web-1', Service: 'web', Port: 80 } } }),
  fc.constant({ method: 'PUT', url: '/v1/config', body: { Kind: 'service-defaults', Name: 'web', Protocol: 'http' } }),
);

test('any sequence of refused requests leaves the log length, the index and the state unchanged', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(refused, { minLength: 1, maxLength: 20 }), async (requests) => {
      const logBefore = await hub.log.lastIndex();
      const indexBefore = hub.catalog.lastIndex();
      const stateBefore = hub.catalog.snapshot().state;
      for (const r of requests) {
        const res = await call(hub, r.method, r.url, r.body);
        assert.ok(res.status < 500, `${r.method} ${r.url}: ${res.status} ${res.text}`);
        assert.equal(res.index, indexBefore, `${r.method} ${r.url}: X-Consul-Index moved`);
      }
      assert.equal(await hub.log.lastIndex(), logBefore, 'the log grew');
      assert.equal(hub.catalog.lastIndex(), indexBefore, 'the index moved');
      assert.equal(hub.catalog.snapshot().state, stateBefore, 'the state changed');
    }),
    { numRuns: 60 },
  );
});
