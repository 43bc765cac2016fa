// key, key_prefix and session rules on /v1/kv, /v1/txn and /v1/session
// (docs/kv.md, "ACLs"): exact beats prefix, the longest prefix wins, deny beats
// all; reads of a tree are filtered key by key, writes refused with Consul's 403.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Hub } from '../../src/hub';
import { aclHub, as, ROOT, tokenWith } from './helpers';

let hub: Hub;
let app: string;
before(async () => {
  hub = await aclHub();
  for (const k of ['app/a', 'app/secret/x', 'other/b'])
    assert.equal((await as(hub, ROOT, 'PUT', `/v1/kv/${k}`, 'v')).text, 'true');
  app = (
    await tokenWith(
      hub,
      'key_prefix "app/" { policy = "write" }\nkey_prefix "app/secret/" { policy = "deny" }\nkey "other/b" { policy = "read" }',
    )
  ).secret;
});
after(() => hub.close());

test('a single key needs key:read: 403 without it, 200 with it', async () => {
  assert.equal((await as(hub, app, 'GET', '/v1/kv/app/a')).status, 200);
  assert.equal((await as(hub, app, 'GET', '/v1/kv/other/b')).status, 200);
  const denied = await as(hub, app, 'GET', '/v1/kv/app/secret/x');
  assert.equal(denied.status, 403);
  assert.match(denied.text, /lacks permission 'key:read' on "app\/secret\/x"/);
  assert.equal((await as(hub, undefined, 'GET', '/v1/kv/app/a')).status, 403, 'anonymous under default deny');
});

test('recurse and keys are filtered key by key, with the filtered header', async () => {
  const tree = await as(hub, app, 'GET', '/v1/kv/?recurse');
  assert.deepEqual(
    tree.json.map((e: { Key: string }) => e.Key),
    ['app/a', 'other/b'],
  );
  assert.equal(tree.headers['x-consul-results-filtered-by-acls'], 'true');
  assert.deepEqual((await as(hub, app, 'GET', '/v1/kv/app/?keys')).json, ['app/a']);
  assert.equal(
    (await as(hub, app, 'GET', '/v1/kv/app/secret/?recurse')).status,
    404,
    'nothing readable reads as nothing',
  );
});

test('writes need key:write; delete-tree needs it on every key it would delete', async () => {
  assert.equal((await as(hub, app, 'PUT', '/v1/kv/app/new', 'v')).text, 'true');
  assert.equal((await as(hub, app, 'PUT', '/v1/kv/other/b', 'v')).status, 403, 'read-only key');
  assert.equal((await as(hub, app, 'PUT', '/v1/kv/app/secret/y', 'v')).status, 403, 'denied prefix');
  const tree = await as(hub, app, 'DELETE', '/v1/kv/app/?recurse');
  assert.equal(tree.status, 403, 'app/secret/x is under the prefix');
  assert.equal((await as(hub, ROOT, 'GET', '/v1/kv/app/new')).status, 200, 'nothing deleted');
});

test('txn: KV writes checked per op, get results filtered', async () => {
  const denied = await as(hub, app, 'PUT', '/v1/txn', [
    { KV: { Verb: 'set', Key: 'app/t', Value: '' } },
    { KV: { Verb: 'set', Key: 'other/b', Value: '' } },
  ]);
  assert.equal(denied.status, 403);
  assert.equal((await as(hub, ROOT, 'GET', '/v1/kv/app/t')).status, 404);
  const read = await as(hub, app, 'PUT', '/v1/txn', [{ KV: { Verb: 'get-tree', Key: 'app/' } }]);
  assert.equal(read.status, 200, read.text);
  assert.deepEqual(
    read.json.Results.map((r: { KV: { Key: string } }) => r.KV.Key),
    ['app/a', 'app/new'],
  );
});

test('txn: Node, Service and Check gets answer only what the token may read, the rest filtered', async () => {
  const setup = await as(hub, ROOT, 'PUT', '/v1/txn', [
    { Node: { Verb: 'set', Node: { Node: 'seen', Address: '10.0.0.7' } } },
    { Node: { Verb: 'set', Node: { Node: 'hidden', Address: '10.0.0.8' } } },
    { Service: { Verb: 'set', Node: 'seen', Service: { ID: 'pub-1', Service: 'pub', Port: 80 } } },
    { Service: { Verb: 'set', Node: 'seen', Service: { ID: 'priv-1', Service: 'priv', Port: 81 } } },
  ]);
  assert.equal(setup.status, 200, setup.text);
  const reader = (await tokenWith(hub, 'node "seen" { policy = "read" }\nservice "pub" { policy = "read" }')).secret;
  const res = await as(hub, reader, 'PUT', '/v1/txn', [
    { Node: { Verb: 'get', Node: { Node: 'seen' } } },
    { Node: { Verb: 'get', Node: { Node: 'hidden' } } },
    { Service: { Verb: 'get', Node: 'seen', Service: { ID: 'pub-1' } } },
    { Service: { Verb: 'get', Node: 'seen', Service: { ID: 'priv-1' } } },
  ]);
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(
    res.json.Results.map((r: { Node?: { Node: string }; Service?: { ID: string } }) => r.Node?.Node ?? r.Service?.ID),
    ['seen', 'pub-1'],
  );
  assert.equal(res.headers['x-consul-results-filtered-by-acls'], 'true');
  assert.equal(res.json.ResultsFilteredByACLs, true);
});

test('sessions: session:write on the node to create, session:read to see them', async () => {
  await as(hub, ROOT, 'PUT', '/v1/catalog/register', { Node: 'worker', Address: '10.0.0.9' });
  const writer = (await tokenWith(hub, 'session "worker" { policy = "write" }\nkey_prefix "" { policy = "write" }'))
    .secret;
  const reader = (await tokenWith(hub, 'session_prefix "" { policy = "read" }')).secret;
  const created = await as(hub, writer, 'PUT', '/v1/session/create', { Node: 'worker' });
  assert.equal(created.status, 200, created.text);
  const denied = await as(hub, reader, 'PUT', '/v1/session/create', { Node: 'worker' });
  assert.equal(denied.status, 403);
  assert.match(denied.text, /session:write/);
  assert.equal((await as(hub, reader, 'GET', `/v1/session/info/${created.json.ID}`)).json.length, 1);
  assert.deepEqual((await as(hub, app, 'GET', '/v1/session/list')).json, [], 'no session rule: filtered out');
  assert.equal((await as(hub, reader, 'PUT', `/v1/session/destroy/${created.json.ID}`)).status, 403);
  assert.equal((await as(hub, writer, 'PUT', `/v1/kv/job?acquire=${created.json.ID}`, 'v')).text, 'true');
});
