// /v1/txn: catalog operations applied atomically; one bad op rolls back all.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Hub } from '../../src/hub';
import { call, startHub } from '../helpers/hub';

let hub: Hub;
before(async () => {
  hub = await startHub();
});
after(() => hub.close());

test('a transaction applies every op in one entry and answers Results', async () => {
  const before = hub.catalog.lastIndex();
  const res = await call(hub, 'PUT', '/v1/txn', [
    { Node: { Verb: 'set', Node: { Node: 'tx-1', Address: '10.2.0.1' } } },
    { Service: { Verb: 'set', Node: 'tx-1', Service: { ID: 'db-1', Service: 'db', Port: 5432 } } },
    {
      Check: {
        Verb: 'set',
        Check: { Node: 'tx-1', CheckID: 'db-1-alive', Name: 'alive', ServiceID: 'db-1', Status: 'passing' },
      },
    },
  ]);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.Errors, null);
  assert.ok(Array.isArray(res.json.Results));
  assert.equal(hub.catalog.lastIndex(), before + 1n);
  assert.equal(res.index, hub.catalog.lastIndex());
  const health = await call(hub, 'GET', '/v1/health/service/db?passing');
  assert.equal(health.json.length, 1);
  assert.equal(health.json[0].Node.Node, 'tx-1');
});

test('one failing op rolls back all: 409 with Errors naming the op, nothing applied', async () => {
  const nodes = (await call(hub, 'GET', '/v1/catalog/nodes')).text;
  const res = await call(hub, 'PUT', '/v1/txn', [
    { Node: { Verb: 'set', Node: { Node: 'tx-2', Address: '10.2.0.2' } } },
    { Service: { Verb: 'cas', Node: 'tx-1', Service: { ID: 'db-1', Service: 'db', Port: 1, ModifyIndex: 999999 } } },
  ]);
  assert.equal(res.status, 409, res.text);
  assert.equal(res.json.Results, null);
  assert.equal(res.json.Errors.length, 1);
  assert.equal(res.json.Errors[0].OpIndex, 1);
  assert.equal(typeof res.json.Errors[0].What, 'string');
  assert.equal((await call(hub, 'GET', '/v1/catalog/nodes')).text, nodes);
  assert.equal((await call(hub, 'GET', '/v1/catalog/service/db')).json[0].ServicePort, 5432);
});

test('CAS and delete verbs', async () => {
  const svc = (await call(hub, 'GET', '/v1/catalog/service/db')).json[0];
  const ok = await call(hub, 'PUT', '/v1/txn', [
    {
      Service: {
        Verb: 'cas',
        Node: 'tx-1',
        Service: { ID: 'db-1', Service: 'db', Port: 6543, ModifyIndex: svc.ModifyIndex },
      },
    },
  ]);
  assert.equal(ok.status, 200, ok.text);
  assert.equal((await call(hub, 'GET', '/v1/catalog/service/db')).json[0].ServicePort, 6543);
  const del = await call(hub, 'PUT', '/v1/txn', [{ Node: { Verb: 'delete', Node: { Node: 'tx-1' } } }]);
  assert.equal(del.status, 200, del.text);
  assert.equal((await call(hub, 'GET', '/v1/catalog/node/tx-1')).json, null);
});

test('bad transactions: Session ops and malformed ops are 400 naming the op; over 128 ops is 413', async () => {
  const before = hub.catalog.lastIndex();
  const cases: Array<[unknown, RegExp]> = [
    [[{ Session: { Verb: 'delete', Session: { ID: 'x' } } }], /^\[0\].Session: Session operations are not supported/],
    [[{ KV: { Verb: 'set', Key: 'a', Value: 'not base64!' } }], /^\[0\].KV.Value: must be base64/],
    [[{ KV: { Verb: 'set', Value: 'Yg==' } }], /^\[0\].KV.Key: Missing key name/],
    [[{ Node: { Verb: 'set', Node: { Address: '1.1.1.1' } } }], /^\[0\].Node.Node.Node: is required/],
    [
      [{ Service: { Verb: 'set', Node: 'n', Service: { Service: 's', Port: 'x' } } }],
      /^\[0\].Service.Service.Port: must be an integer/,
    ],
    [[{}], /^\[0\]: each operation needs exactly one of/],
    [{ Node: {} }, /^body: must be a JSON array/],
    [[], /^body: must contain at least one operation/],
  ];
  for (const [body, pattern] of cases) {
    const res = await call(hub, 'PUT', '/v1/txn', body);
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.match(res.text, pattern);
  }
  const tooMany = Array.from({ length: 129 }, (_, i) => ({
    Node: { Verb: 'set', Node: { Node: `n${i}`, Address: '1.1.1.1' } },
  }));
  const big = await call(hub, 'PUT', '/v1/txn', tooMany);
  assert.equal(big.status, 413);
  assert.match(big.text, /too many operations \(129 > 128\)/);
  assert.equal(hub.catalog.lastIndex(), before);
});

test('unknown verbs are refused as Consul does: 409 with an Errors entry per op naming the verb, nothing applied', async () => {
  const before = hub.catalog.lastIndex();
  const res = await call(hub, 'PUT', '/v1/txn', [
    { Node: { Verb: 'set', Node: { Node: 'ok', Address: '1.1.1.1' } } },
    { Node: { Verb: 'merge', Node: { Node: 'x' } } },
    { KV: { Verb: 'explode', Key: 'a' } },
  ]);
  assert.equal(res.status, 409, res.text);
  assert.deepEqual(res.json, {
    Results: null,
    Errors: [
      { OpIndex: 1, What: 'unknown Node verb "merge"' },
      { OpIndex: 2, What: 'unknown KV verb "explode"' },
    ],
  });
  assert.equal(hub.catalog.lastIndex(), before);
  assert.equal((await call(hub, 'GET', '/v1/catalog/node/ok')).json, null);
});

test('get verbs read Node, Service and Check; a missing one is 409 naming it; reads append nothing', async () => {
  const setup = await call(hub, 'PUT', '/v1/txn', [
    { Node: { Verb: 'set', Node: { Node: 'g-1', Address: '10.3.0.1' } } },
    { Service: { Verb: 'set', Node: 'g-1', Service: { ID: 'g-svc', Service: 'g', Port: 80 } } },
    { Check: { Verb: 'set', Check: { Node: 'g-1', CheckID: 'g-chk', Name: 'g', Status: 'passing' } } },
  ]);
  assert.equal(setup.status, 200, setup.text);
  const before = hub.catalog.lastIndex();
  const res = await call(hub, 'PUT', '/v1/txn', [
    { Node: { Verb: 'get', Node: { Node: 'g-1' } } },
    { Service: { Verb: 'get', Node: 'g-1', Service: { ID: 'g-svc' } } },
    { Check: { Verb: 'get', Check: { Node: 'g-1', CheckID: 'g-chk' } } },
  ]);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.Results[0].Node.Address, '10.3.0.1');
  assert.equal(res.json.Results[1].Service.Port, 80);
  assert.equal(res.json.Results[2].Check.Status, 'passing');
  // A read-only transaction is answered as a read, with Consul's query meta.
  assert.equal(res.json.KnownLeader, true);
  assert.equal(res.json.ConsistencyLevel, '');
  assert.equal(hub.catalog.lastIndex(), before);
  const missing = await call(hub, 'PUT', '/v1/txn', [
    { Service: { Verb: 'get', Node: 'g-1', Service: { ID: 'nope' } } },
    { Check: { Verb: 'get', Check: { Node: 'g-2', CheckID: 'c' } } },
  ]);
  assert.equal(missing.status, 409, missing.text);
  assert.deepEqual(
    missing.json.Errors.map((e: { What: string }) => e.What),
    ['service "nope" on node "g-1" doesn\'t exist', 'check "c" on node "g-2" doesn\'t exist'],
  );
});
