// The log-store registry (src/log/store-kinds.ts): every kind is named by
// --store, opens through openLog, and declares the capabilities the hub asks
// for instead of testing kinds (data dir, history, sharing, Redis flags).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isHubError } from '../../src/errors';
import { parseStore, STORE_KINDS, type StoreKind, storeKind } from '../../src/log/store-kinds';

/** A --store text for each kind: a record over every kind, so a new kind fails to build here. */
const SPELLED: Record<StoreKind, string> = { sqlite: 'sqlite', memory: 'memory', redis: 'redis://127.0.0.1:6379' };

test('every store kind is named by --store and describes itself without secrets', () => {
  for (const kind of Object.keys(STORE_KINDS) as StoreKind[]) {
    const store = parseStore(SPELLED[kind]);
    assert.equal(store.kind, kind);
    assert.equal(storeKind(store), STORE_KINDS[kind]);
  }
  const secret = parseStore('redis://:hunter2@127.0.0.1:6379');
  assert.doesNotMatch(storeKind(secret).describe(secret, './data'), /hunter2/);
  assert.equal(storeKind(parseStore('sqlite')).describe({ kind: 'sqlite' }, './data'), 'sqlite (./data)');
});

test('a --store no kind takes is refused naming the field and every spelling', () => {
  assert.throws(
    () => parseStore('etcd'),
    (e: unknown) =>
      isHubError(e, 'INVALID_ARGUMENT') && e.field === 'store' && /sqlite, memory, redis:\/\//.test(e.message),
  );
});

test('capabilities agree with each other', () => {
  for (const [kind, spec] of Object.entries(STORE_KINDS)) {
    assert.equal(spec.history !== 'none', spec.durable, `${kind}: a history is kept exactly beside a durable log`);
    if (spec.usesDataDir) assert.equal(spec.history, 'sqlite-file', kind);
  }
});
