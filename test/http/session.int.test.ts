// /v1/session: Consul's answers for create, info, node, list, renew and
// destroy, its refusals, and a session ending with its node (its lock delay after).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Hub } from '../../src/hub';
import { call, startHub } from '../helpers/hub';

let hub: Hub;
before(async () => {
  hub = await startHub();
  await call(hub, 'PUT', '/v1/catalog/register', { Node: 'sess-node', Address: '10.9.0.1' });
});
after(() => hub.close());

test('create fills Consul defaults; info, node and list show the session', async () => {
  const { ID } = (await call(hub, 'PUT', '/v1/session/create', { Node: 'sess-node', Name: 'n' })).json;
  const info = await call(hub, 'GET', `/v1/session/info/${ID}`);
  assert.deepEqual(info.json, [
    {
      ID,
      Name: 'n',
      Node: 'sess-node',
      LockDelay: 15e9,
      Behavior: 'release',
      TTL: '',
      NodeChecks: ['serfHealth'],
      ServiceChecks: null,
      CreateIndex: Number(info.index),
      ModifyIndex: Number(info.index),
    },
  ]);
  assert.deepEqual(
    (await call(hub, 'GET', '/v1/session/node/sess-node')).json.map((s: { ID: string }) => s.ID),
    [ID],
  );
  assert.ok((await call(hub, 'GET', '/v1/session/list')).json.some((s: { ID: string }) => s.ID === ID));
  assert.deepEqual((await call(hub, 'GET', '/v1/session/info/no-such-id')).json, []);
});

test('refusals: a TTL out of bounds, a bad Behavior, an unknown node or check; renew of an unknown session is 404', async () => {
  const before = hub.catalog.lastIndex();
  const ttl = await call(hub, 'PUT', '/v1/session/create', { TTL: '5s' });
  assert.equal(ttl.status, 400);
  assert.match(ttl.text, /Invalid Session TTL '5s', must be between \[10s=24h0m0s\]/);
  assert.equal((await call(hub, 'PUT', '/v1/session/create', { Behavior: 'keep' })).status, 400);
  const node = await call(hub, 'PUT', '/v1/session/create', { Node: 'nowhere' });
  assert.equal(node.status, 400);
  assert.match(node.text, /Missing node registration/);
  const check = await call(hub, 'PUT', '/v1/session/create', { Node: 'sess-node', NodeChecks: ['nope'] });
  assert.match(check.text, /Missing check 'nope' registration/);
  const renew = await call(hub, 'PUT', '/v1/session/renew/no-such-id');
  assert.equal(renew.status, 404);
  assert.match(renew.text, /Session id 'no-such-id' not found/);
  assert.equal(hub.catalog.lastIndex(), before);
});

test('a blocking session list answers when a session ends with its node', async () => {
  await call(hub, 'PUT', '/v1/catalog/register', { Node: 'short-lived', Address: '10.9.0.2' });
  const { ID } = (await call(hub, 'PUT', '/v1/session/create', { Node: 'short-lived', LockDelay: '60s' })).json;
  assert.equal((await call(hub, 'PUT', `/v1/kv/held?acquire=${ID}`, 'v')).text, 'true');
  const first = await call(hub, 'GET', '/v1/session/node/short-lived');
  const waiting = call(hub, 'GET', `/v1/session/node/short-lived?index=${first.index}&wait=30s`);
  await call(hub, 'PUT', '/v1/catalog/deregister', { Node: 'short-lived' });
  const after = await waiting;
  assert.deepEqual(after.json, []);
  assert.ok(after.index > first.index);
  assert.equal((await call(hub, 'GET', '/v1/kv/held')).json[0].Session, undefined, 'its lock was released');
  // The lock delay runs from the deregistration.
  const other = (await call(hub, 'PUT', '/v1/session/create', {})).json.ID;
  assert.equal((await call(hub, 'PUT', `/v1/kv/held?acquire=${other}`, 'v')).text, 'false', 'inside the lock delay');
});
