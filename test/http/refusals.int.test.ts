// Refused and no-op writes are answered without touching the log: the log
// does not grow, the index does not move, blocking queries are not woken —
// case by case, and as a property over any sequence of them (fast-check).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import type { Hub } from '../../src/hub';
import { call, startHub } from '../helpers/hub';

let hub: Hub;
before(async () => {
  hub = await startHub({ nodeName: 'hub-refusals' });
  const setup: Array<[string, string, unknown]> = [
    [
      'PUT',
      '/v1/catalog/register',
      {
        Node: 'n1',
        Address: '10.0.0.1',
        Service: { ID: 'web-1', Service: 'web', Port: 80 },
        Checks: [{ CheckID: 'c1', Status: 'passing', ServiceID: 'web-1' }],
      },
    ],
    ['PUT', '/v1/agent/service/register', { Name: 'api', ID: 'api-1', Port: 90, Check: { TTL: '10m' } }],
    ['PUT', '/v1/config', { Kind: 'service-defaults', Name: 'web', Protocol: 'http' }],
  ];
  for (const [method, url, body] of setup) assert.equal((await call(hub, method, url, body)).status, 200, url);
});
after(() => hub.close());

/** Runs `requests`, asserting each answers as expected, and that neither the log nor the index moved. */
async function assertNothingLogged(requests: Array<[string, string, unknown, number]>): Promise<void> {
  const logBefore = await hub.log.lastIndex();
  const indexBefore = hub.catalog.lastIndex();
  for (const [method, url, body, status] of requests) {
    const res = await call(hub, method, url, body);
    assert.equal(res.status, status, `${method} ${url}: ${res.text}`);
    assert.equal(res.index, indexBefore, `${method} ${url}: X-Consul-Index stays ${indexBefore}`);
  }
  assert.equal(await hub.log.lastIndex(), logBefore, 'no entry was appended');
  assert.equal(hub.catalog.lastIndex(), indexBefore, 'the index did not move');
}

test('200 TTL updates of an unknown check: each 404, the log does not grow', async () => {
  const requests: Array<[string, string, unknown, number]> = [];
  for (let i = 0; i < 200; i++) requests.push(['PUT', `/v1/agent/check/pass/nope-${i % 7}`, undefined, 404]);
  requests.push(['PUT', '/v1/agent/check/update/nope', { Status: 'passing' }, 404]);
  await assertNothingLogged(requests);
});

test('refused transactions (409) are not logged', async () => {
  await assertNothingLogged([
    ['PUT', '/v1/txn', [{ Node: { Verb: 'delete-cas', Node: { Node: 'ghost', ModifyIndex: 3 } } }], 409],
    [
      'PUT',
      '/v1/txn',
      [{ Service: { Verb: 'cas', Node: 'n1', Service: { ID: 'web-1', Service: 'web', Port: 1, ModifyIndex: 999 } } }],
      409,
    ],
    ['PUT', '/v1/txn', [{ Service: { Verb: 'set', Node: 'ghost', Service: { ID: 's', Service: 's' } } }], 409],
  ]);
});

test('deregistering unknown nodes, services and checks is not logged', async () => {
  await assertNothingLogged([
    ['PUT', '/v1/catalog/deregister', { Node: 'ghost' }, 200],
    ['PUT', '/v1/catalog/deregister', { Node: 'n1', ServiceID: 'ghost' }, 200],
    ['PUT', '/v1/catalog/deregister', { Node: 'n1', CheckID: 'ghost' }, 200],
    ['PUT', '/v1/agent/service/deregister/ghost', undefined, 404],
    ['DELETE', '/v1/config/service-defaults/ghost', undefined, 200],
    ['PUT', '/v1/txn', [{ Node: { Verb: 'delete', Node: { Node: 'ghost' } } }], 200],
  ]);
});

test('config CAS mismatches are not logged', async () => {
  await assertNothingLogged([
    ['PUT', '/v1/config?cas=0', { Kind: 'service-defaults', Name: 'web', Protocol: 'grpc' }, 200],
    ['PUT', '/v1/config?cas=12345', { Kind: 'service-defaults', Name: 'web', Protocol: 'grpc' }, 200],
    ['DELETE', '/v1/config/service-defaults/web?cas=12345', undefined, 200],
  ]);
  const entry = await call(hub, 'GET', '/v1/config/service-defaults/web');
  assert.equal(entry.json.Protocol, 'http', 'the CAS writes were refused');
});

test('writes that change nothing are answered without an entry', async () => {
  await assertNothingLogged([
    ['PUT', '/v1/config', { Kind: 'service-defaults', Name: 'web', Protocol: 'http' }, 200],
    [
      'PUT',
      '/v1/catalog/register',
      { Node: 'n1', Address: '10.0.0.1', Service: { ID: 'web-1', Service: 'web', Port: 80 } },
      200,
    ],
  ]);
});

test('a TTL refresh with an unchanged status is logged: it restarts the TTL clock', async () => {
  const before = hub.catalog.lastIndex();
  assert.equal((await call(hub, 'PUT', '/v1/agent/check/pass/service:api-1')).status, 200);
  assert.equal((await call(hub, 'PUT', '/v1/agent/check/pass/service:api-1')).status, 200);
  assert.equal(hub.catalog.lastIndex(), before + 2n);
});

test("a write that loses a race to another hub's write is refused at apply and counted in xdshub_catalog_refused_at_apply_total", async () => {
  await call(hub, 'PUT', '/v1/catalog/register', {
    Node: 'n2',
    Address: '10.0.0.2',
    Checks: [{ CheckID: 'race', Status: 'passing' }],
  });
  // Another hub sharing the log deregisters the check; this hub has not applied
  // that entry yet when it checks its own write, so the write is appended after it.
  const other = hub.log.append([JSON.stringify({ type: 'deregister', node: 'n2', checkId: 'race' })]);
  const mine = hub.catalog.submit({
    type: 'check-update',
    node: 'n2',
    checkId: 'race',
    status: 'critical',
    output: '',
  });
  const [[otherIndex], result] = await Promise.all([other, mine]);
  assert.deepEqual([result.ok, result.error?.code, result.index], [false, 'NOT_FOUND', otherIndex! + 1n]);
  const metrics = (await hub.http.inject({ method: 'GET', url: '/metrics' })).body;
  assert.match(metrics, /xdshub_catalog_refused_at_apply_total\{type="check-update"\} 1/);
});

type Req = { method: string; url: string; body?: unknown };

const unknownId = fc.constantFrom('ghost', 'nope', 'service:ghost', 'c2', 'web-9');
const knownNode = fc.constantFrom('n1', 'hub-refusals');
const staleIndex = fc.integer({ min: 5_000, max: 9_999 });

/** Requests the hub must refuse (4xx) or find to change nothing, whatever the order. */
const refused: fc.Arbitrary<Req> = fc.oneof(
  fc
    .tuple(fc.constantFrom('pass', 'warn', 'fail'), unknownId)
    .map(([verb, id]) => ({ method: 'PUT', url: `/v1/agent/check/${verb}/${id}` })),
  unknownId.map((id) => ({
    method: 'PUT',
    url: `/v1/agent/check/update/${id}`,
    body: { Status: 'passing', Output: 'x' },
  })),
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
  fc.tuple(unknownId, staleIndex).map(([id, index]) => ({
    method: 'PUT',
    url: '/v1/txn',
    body: [{ Node: { Verb: 'delete-cas', Node: { Node: id, ModifyIndex: index } } }],
  })),
  staleIndex.map((cas) => ({
    method: 'PUT',
    url: `/v1/config?cas=${cas}`,
    body: { Kind: 'service-defaults', Name: 'web', Protocol: 'grpc' },
  })),
  fc.constant({
    method: 'PUT',
    url: '/v1/config?cas=0',
    body: { Kind: 'service-defaults', Name: 'web', Protocol: 'grpc' },
  }),
  staleIndex.map((cas) => ({ method: 'DELETE', url: `/v1/config/service-defaults/web?cas=${cas}` })),
  unknownId.map((name) => ({ method: 'DELETE', url: `/v1/config/service-resolver/${name}` })),
  // Bad input (400): control characters, over-long names, deep JSON, a zero TTL, duplicate check IDs, bad JSON.
  fc
    .constantFrom('a\u0000b', 'x\n', 'n'.repeat(300))
    .map((name) => ({ method: 'PUT', url: '/v1/catalog/register', body: { Node: name, Address: '10.0.0.9' } })),
  fc.integer({ min: 33, max: 200 }).map((depth) => {
    let v: unknown = 1;
    for (let i = 0; i < depth; i++) v = [v];
    return { method: 'PUT', url: '/v1/config', body: { Kind: 'service-defaults', Name: 'deep', Extra: v } };
  }),
  fc.constant({ method: 'PUT', url: '/v1/agent/service/register', body: { Name: 'z', Check: { TTL: '0s' } } }),
  fc.constant({
    method: 'PUT',
    url: '/v1/catalog/register',
    body: { Node: 'n9', Address: '10.0.0.9', Checks: [{ CheckID: 'c' }, { CheckID: 'c' }] },
  }),
  fc.constant({ method: 'PUT', url: '/v1/txn', body: '[{"Node":' }),
  // Changes nothing: the same service and config entry again.
  fc.constant({
    method: 'PUT',
    url: '/v1/catalog/register',
    body: { Node: 'n1', Address: '10.0.0.1', Service: { ID: 'web-1', Service: 'web', Port: 80 } },
  }),
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
