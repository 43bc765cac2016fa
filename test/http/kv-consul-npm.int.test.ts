// What the `consul` npm client does with KV and sessions, against a hub over a
// real socket: kv set/get/keys/del (with flags and cas), and session
// create/info/renew/destroy with a lock taken and freed.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import Consul from 'consul';
import type { Hub } from '../../src/hub';
import { startHub } from '../helpers/hub';

/** A DirEntry as the client hands it back (Value decoded). */
type Entry = { Key: string; Value: string; Flags: number; ModifyIndex: number; Session?: string };

let hub: Hub;
let consul: Consul;
before(async () => {
  hub = await startHub();
  consul = new Consul({ host: '127.0.0.1', port: hub.httpPort });
});
after(() => hub.close());

test('kv set, get, keys and del', async () => {
  assert.equal(await consul.kv.set('npm/a', 'hello'), true);
  assert.equal(await consul.kv.set({ key: 'npm/b/c', value: 'x', flags: 9 }), true);
  const a = (await consul.kv.get('npm/a')) as Entry;
  assert.equal(a.Value, 'hello');
  assert.equal(((await consul.kv.get('npm/b/c')) as Entry).Flags, 9);
  assert.deepEqual(await consul.kv.keys({ key: 'npm/', separator: '/' }), ['npm/a', 'npm/b/']);
  // The hub answers `false`, as Consul does; the client hands back a falsy value.
  assert.ok(!(await consul.kv.set({ key: 'npm/a', value: 'late', cas: a.ModifyIndex + 1 })));
  assert.equal(((await consul.kv.get('npm/a')) as Entry).Value, 'hello');
  assert.equal(await consul.kv.set({ key: 'npm/a', value: 'next', cas: a.ModifyIndex }), true);
  const tree = (await consul.kv.get({ key: 'npm/', recurse: true })) as Entry[];
  assert.deepEqual(
    tree.map((e) => [e.Key, e.Value]),
    [
      ['npm/a', 'next'],
      ['npm/b/c', 'x'],
    ],
  );
  await consul.kv.del({ key: 'npm/', recurse: true });
  assert.equal(await consul.kv.get('npm/a'), undefined);
});

test('session create, info, renew and destroy; a lock held and freed', async () => {
  const { ID } = await consul.session.create({ name: 'npm', ttl: '15s', lockdelay: '1s' });
  const info = await consul.session.info(ID);
  assert.equal(info.Name, 'npm');
  assert.equal(info.TTL, '15s');
  assert.equal(info.LockDelay, 1e9);
  assert.deepEqual(info.NodeChecks, ['serfHealth']);
  assert.equal(await consul.kv.set({ key: 'npm/lock', value: 'me', acquire: ID }), true);
  const [renewed] = await consul.session.renew(ID);
  assert.equal(renewed.ID, ID);
  assert.equal(((await consul.kv.get('npm/lock')) as Entry).Session, ID);
  assert.equal((await consul.session.list()).length, 1);
  await consul.session.destroy(ID);
  assert.equal(((await consul.kv.get('npm/lock')) as Entry).Session, undefined);
  assert.equal(await consul.session.info(ID), undefined);
});
