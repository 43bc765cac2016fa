// /v1/kv: values in and out as Consul's API carries them, CAS, locks with
// sessions, blocking queries, ?keys with separators, and /v1/txn KV operations.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Hub } from '../../src/hub';
import { call, startHub } from '../helpers/hub';

let hub: Hub;
before(async () => {
  hub = await startHub();
});
after(() => hub.close());

const b64 = (s: string) => Buffer.from(s).toString('base64');

async function put(url: string, value: string): Promise<{ status: number; text: string }> {
  const res = await hub.http.inject({
    method: 'PUT',
    url,
    payload: value,
    headers: { 'content-type': 'application/octet-stream' },
  });
  return { status: res.statusCode, text: res.body };
}

test('PUT stores raw bytes; GET answers a DirEntry with the value in base64, ?raw the bytes', async () => {
  assert.deepEqual(await put('/v1/kv/app/config?flags=42', 'not json {'), { status: 200, text: 'true' });
  const res = await call(hub, 'GET', '/v1/kv/app/config');
  assert.equal(res.status, 200);
  const [e] = res.json;
  assert.deepEqual(Object.keys(e), ['LockIndex', 'Key', 'Flags', 'Value', 'CreateIndex', 'ModifyIndex']);
  assert.equal(e.Key, 'app/config');
  assert.equal(e.Flags, 42);
  assert.equal(e.Value, b64('not json {'));
  assert.equal(res.index, BigInt(e.ModifyIndex));
  const raw = await call(hub, 'GET', '/v1/kv/app/config?raw');
  assert.equal(raw.text, 'not json {');
  assert.equal(raw.headers['x-content-type-options'], 'nosniff');
});

test('a missing key is an empty 404; an empty value reads as null', async () => {
  const missing = await call(hub, 'GET', '/v1/kv/nope');
  assert.equal(missing.status, 404);
  assert.equal(missing.text, '');
  await put('/v1/kv/empty', '');
  assert.equal((await call(hub, 'GET', '/v1/kv/empty')).json[0].Value, null);
});

test('flags keep all 64 bits (consul lock writes one above 2^53)', async () => {
  await put('/v1/kv/big?flags=3304740253564472344', 'x');
  const res = await call(hub, 'GET', '/v1/kv/big');
  assert.match(res.text, /"Flags":3304740253564472344,/);
  assert.equal((await put('/v1/kv/big?flags=18446744073709551616', 'x')).status, 400);
});

test('recurse, keys and separator', async () => {
  for (const k of ['tree/a', 'tree/b/c', 'tree/b/d', 'tree/e/f/g', 'treehouse']) await put(`/v1/kv/${k}`, k);
  const rec = await call(hub, 'GET', '/v1/kv/tree/?recurse');
  assert.deepEqual(
    rec.json.map((e: { Key: string }) => e.Key),
    ['tree/a', 'tree/b/c', 'tree/b/d', 'tree/e/f/g'],
  );
  assert.deepEqual((await call(hub, 'GET', '/v1/kv/tree?keys')).json, [
    'tree/a',
    'tree/b/c',
    'tree/b/d',
    'tree/e/f/g',
    'treehouse',
  ]);
  assert.deepEqual((await call(hub, 'GET', '/v1/kv/tree/?keys&separator=/')).json, ['tree/a', 'tree/b/', 'tree/e/']);
  assert.equal((await call(hub, 'GET', '/v1/kv/none/?keys')).status, 404);
  assert.equal((await call(hub, 'GET', '/v1/kv/none/?recurse')).status, 404);
});

test('cas: 0 creates only, an index updates only at that index; delete-cas likewise', async () => {
  assert.equal((await put('/v1/kv/cas-key?cas=0', 'one')).text, 'true');
  assert.equal((await put('/v1/kv/cas-key?cas=0', 'two')).text, 'false');
  const { ModifyIndex } = (await call(hub, 'GET', '/v1/kv/cas-key')).json[0];
  const before = hub.catalog.lastIndex();
  assert.equal((await put(`/v1/kv/cas-key?cas=${ModifyIndex + 1}`, 'three')).text, 'false');
  assert.equal(hub.catalog.lastIndex(), before, 'a failed CAS appends nothing');
  assert.equal((await put(`/v1/kv/cas-key?cas=${ModifyIndex}`, 'three')).text, 'true');
  assert.equal((await call(hub, 'DELETE', `/v1/kv/cas-key?cas=${ModifyIndex}`)).text, 'false');
  const now = (await call(hub, 'GET', '/v1/kv/cas-key')).json[0].ModifyIndex;
  assert.equal((await call(hub, 'DELETE', `/v1/kv/cas-key?cas=${now}`)).text, 'true');
  assert.equal((await call(hub, 'GET', '/v1/kv/cas-key')).status, 404);
});

test('bad input: 400 naming the option, nothing appended', async () => {
  const before = hub.catalog.lastIndex();
  assert.equal((await put('/v1/kv/x?cas=1&acquire=abc', 'v')).status, 400);
  assert.equal((await put('/v1/kv/x?flags=-1', 'v')).status, 400);
  assert.equal((await put('/v1/kv/x?cas=abc', 'v')).status, 400);
  const noKey = await put('/v1/kv/', 'v');
  assert.equal(noKey.status, 400);
  assert.match(noKey.text, /Missing key name/);
  assert.equal((await put('/v1/kv/x?acquire=no-such-session', 'v')).status, 400);
  assert.equal((await put('/v1/kv/x', 'v'.repeat(512 * 1024 + 1))).status, 413, "past Consul's kv_max_value_size");
  assert.equal(hub.catalog.lastIndex(), before);
  assert.equal((await put('/v1/kv/x', 'v'.repeat(512 * 1024))).status, 200);
  assert.equal((await call(hub, 'DELETE', '/v1/kv/x')).status, 200);
});

test('DELETE ?recurse removes a tree; a plain DELETE one key', async () => {
  for (const k of ['del/a', 'del/b/c', 'delx']) await put(`/v1/kv/${k}`, 'v');
  assert.equal((await call(hub, 'DELETE', '/v1/kv/del/?recurse')).text, 'true');
  assert.equal((await call(hub, 'GET', '/v1/kv/del/?recurse')).status, 404);
  assert.equal((await call(hub, 'GET', '/v1/kv/delx')).status, 200);
});

test('a blocking GET on a key answers when the key changes, not before', async () => {
  await put('/v1/kv/watch/me', 'v1');
  const first = await call(hub, 'GET', '/v1/kv/watch/me');
  const waiting = call(hub, 'GET', `/v1/kv/watch/me?index=${first.index}&wait=30s`);
  let answered = false;
  void waiting.then(() => (answered = true));
  await put('/v1/kv/watch/other', 'unrelated');
  await call(hub, 'GET', '/v1/kv/watch/other');
  assert.equal(answered, false, 'another key does not wake it');
  await put('/v1/kv/watch/me', 'v2');
  const res = await waiting;
  assert.equal(res.json[0].Value, b64('v2'));
  assert.ok(res.index > first.index);
  // A deletion wakes a reader of the key too, with a higher index.
  const gone = call(hub, 'GET', `/v1/kv/watch/me?index=${res.index}&wait=30s`);
  await call(hub, 'DELETE', '/v1/kv/watch/me');
  const after = await gone;
  assert.equal(after.status, 404);
  assert.ok(after.index > res.index);
});

test('acquire and release with a session; a second session cannot acquire a held key', async () => {
  const s1 = (await call(hub, 'PUT', '/v1/session/create', { Name: 'one', LockDelay: '0s' })).json.ID;
  const s2 = (await call(hub, 'PUT', '/v1/session/create', { Name: 'two' })).json.ID;
  assert.equal((await put(`/v1/kv/lock/a?acquire=${s1}`, 'mine')).text, 'true');
  assert.equal((await put(`/v1/kv/lock/a?acquire=${s2}`, 'theirs')).text, 'false');
  let [e] = (await call(hub, 'GET', '/v1/kv/lock/a')).json;
  assert.equal(e.Session, s1);
  assert.equal(e.LockIndex, 1);
  assert.equal(Buffer.from(e.Value, 'base64').toString(), 'mine');
  assert.equal((await put(`/v1/kv/lock/a?release=${s2}`, 'x')).text, 'false');
  assert.equal((await put(`/v1/kv/lock/a?release=${s1}`, 'released')).text, 'true');
  [e] = (await call(hub, 'GET', '/v1/kv/lock/a')).json;
  assert.equal(e.Session, undefined);
  assert.equal((await put(`/v1/kv/lock/a?acquire=${s2}`, 'theirs')).text, 'true', 'a release sets no lock delay');
  assert.equal((await call(hub, 'GET', '/v1/kv/lock/a')).json[0].LockIndex, 2);
});

test('destroying a session releases its keys and starts the lock delay; Behavior delete deletes them', async () => {
  const s1 = (await call(hub, 'PUT', '/v1/session/create', { LockDelay: '60s' })).json.ID;
  const s2 = (await call(hub, 'PUT', '/v1/session/create', {})).json.ID;
  await put(`/v1/kv/ld/a?acquire=${s1}`, 'v');
  assert.equal((await call(hub, 'PUT', `/v1/session/destroy/${s1}`)).text, 'true');
  const [e] = (await call(hub, 'GET', '/v1/kv/ld/a')).json;
  assert.equal(e.Session, undefined);
  assert.equal((await put(`/v1/kv/ld/a?acquire=${s2}`, 'v')).text, 'false', 'within the lock delay');
  const del = (await call(hub, 'PUT', '/v1/session/create', { Behavior: 'delete', LockDelay: 0 })).json.ID;
  await put(`/v1/kv/ld/b?acquire=${del}`, 'v');
  await call(hub, 'PUT', `/v1/session/destroy/${del}`);
  assert.equal((await call(hub, 'GET', '/v1/kv/ld/b')).status, 404);
});

test('txn KV verbs: set, get, get-tree, check-index and a failed cas rolling back with 409 Errors', async () => {
  const ok = await call(hub, 'PUT', '/v1/txn', [
    { KV: { Verb: 'set', Key: 'tx/a', Value: b64('A'), Flags: 7 } },
    { KV: { Verb: 'set', Key: 'tx/b', Value: b64('B') } },
    { KV: { Verb: 'get', Key: 'tx/a' } },
    { KV: { Verb: 'get-tree', Key: 'tx/' } },
  ]);
  assert.equal(ok.status, 200, ok.text);
  assert.equal(ok.json.Errors, null);
  const results = ok.json.Results.map((r: { KV: { Key: string; Value: string | null } }) => [r.KV.Key, r.KV.Value]);
  assert.deepEqual(results, [
    ['tx/a', null],
    ['tx/b', null],
    ['tx/a', b64('A')],
    ['tx/a', b64('A')],
    ['tx/b', b64('B')],
  ]);
  const index = ok.json.Results[0].KV.ModifyIndex;
  const bad = await call(hub, 'PUT', '/v1/txn', [
    { KV: { Verb: 'set', Key: 'tx/c', Value: b64('C') } },
    { KV: { Verb: 'cas', Key: 'tx/a', Value: b64('A2'), Index: index + 100 } },
    { KV: { Verb: 'check-not-exists', Key: 'tx/b' } },
  ]);
  assert.equal(bad.status, 409);
  assert.deepEqual(
    bad.json.Errors.map((e: { OpIndex: number }) => e.OpIndex),
    [1, 2],
  );
  assert.match(bad.json.Errors[0].What, /index is stale/);
  assert.equal((await call(hub, 'GET', '/v1/kv/tx/c')).status, 404, 'rolled back');
  const check = await call(hub, 'PUT', '/v1/txn', [
    { KV: { Verb: 'check-index', Key: 'tx/a', Index: index } },
    { KV: { Verb: 'delete-tree', Key: 'tx/' } },
  ]);
  assert.equal(check.status, 200, check.text);
  assert.equal((await call(hub, 'GET', '/v1/kv/tx/?recurse')).status, 404);
});
