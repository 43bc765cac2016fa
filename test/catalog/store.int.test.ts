// createCatalog over real logs: the in-memory log and a SQLite file in a temp dir.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import pino from 'pino';
import type { Catalog } from '../../src/catalog/catalog';
import type { Command } from '../../src/catalog/commands';
import { createCatalog } from '../../src/catalog/store';
import type { CatalogEvent } from '../../src/catalog/types';
import { isHubError } from '../../src/errors';
import type { Log } from '../../src/log/log';
import { createMemoryLog } from '../../src/log/memory';
import { createSqliteLog } from '../../src/log/sqlite';
import { checkInput, register, serviceInput } from './fixtures';

const logger = pino({ level: 'silent' });
const dir = mkdtempSync(join(tmpdir(), 'xdshub-catalog-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const workload: Command[] = [
  register('n1', {
    service: serviceInput('web-1', 'web'),
    checks: [checkInput('serf'), checkInput('w', { ServiceID: 'web-1' })],
  }),
  register('n2', { service: serviceInput('web-2', 'web', { Tags: ['canary'] }) }),
  { type: 'config-set', entry: { Kind: 'service-resolver', Name: 'web', ConnectTimeout: '3s' } },
  { type: 'check-update', node: 'n1', checkId: 'w', status: 'critical', output: 'down' },
  { type: 'txn', ops: [{ op: 'service-delete', node: 'n2', serviceId: 'web-2' }] },
  { type: 'config-set', entry: { Kind: 'mesh', Name: 'mesh' }, cas: 99 }, // refused
  register('n3', { service: serviceInput('api-1', 'api') }),
];

/** KV and sessions ride the same log: a held lock, a value, and a lock delay left by a destroyed session. */
const kvWorkload: Command[] = [
  ...[
    { ID: 's1', Name: 'leader', Node: 'n1', LockDelay: 15e9, Behavior: 'release' as const, TTL: '30s' },
    { ID: 's2', Name: 'gone', Node: 'n3', LockDelay: 60e9, Behavior: 'release' as const, TTL: '' },
  ].flatMap((s): Command[] => [
    { type: 'session-create', session: { ...s, NodeChecks: ['serfHealth'], ServiceChecks: null }, now: 1_000 },
    {
      type: 'kv',
      op: { verb: 'lock', key: `lock/${s.ID}`, value: 'eA==', flags: '3304740253564472344', session: s.ID },
      now: 1_000,
    },
  ]),
  { type: 'session-destroy', id: 's2', now: 2_000 },
  { type: 'kv', op: { verb: 'set', key: 'cfg/a', value: 'YQ==', flags: '0' }, now: 2_000 },
];

test('submit resolves with the entry result after it is applied; listeners see the new state synchronously', async () => {
  const log = createMemoryLog();
  const catalog = await createCatalog({ log, logger });
  const seen: { index: bigint; events: readonly CatalogEvent[]; instances: number }[] = [];
  catalog.onApplied((index, events) =>
    seen.push({ index, events, instances: catalog.serviceInstances('web').value.length }),
  );
  try {
    const r1 = await catalog.submit(workload[0]!);
    // Index 1 is the origin entry a fresh log starts with; real changes start at 2.
    assert.deepEqual([r1.ok, r1.index], [true, 2n]);
    assert.equal(catalog.serviceInstances('web').value.length, 1, 'read-your-write after submit');
    // Refused before append: no entry, the index stays where it was.
    const r2 = await catalog.submit({
      type: 'check-update',
      node: 'n1',
      checkId: 'nope',
      status: 'passing',
      output: '',
    });
    assert.deepEqual([r2.ok, r2.error?.code, r2.index], [false, 'NOT_FOUND', 2n]);
    assert.equal(await log.lastIndex(), 2n);
    assert.deepEqual(
      seen.map((s) => [s.index, s.events.length, s.instances]),
      [[2n, 2, 1]],
    );
    const results = [];
    for (const c of workload.slice(1)) results.push(await catalog.submit(c));
    assert.deepEqual(
      results.map((r) => r.index),
      [3n, 4n, 5n, 6n, 6n, 7n],
    );
    assert.deepEqual(
      results.map((r) => r.ok),
      [true, true, true, true, false, true],
    );
    assert.equal(catalog.lastIndex(), 7n);
    assert.equal(await log.lastIndex(), 7n, 'the refused config-set was never appended');
  } finally {
    await catalog.close();
    await log.close();
  }
});

test('waitForIndex resolves when an entry passes the index and rejects on abort', async () => {
  const log = createMemoryLog();
  const catalog = await createCatalog({ log, logger });
  try {
    const waiting = catalog.waitForIndex(1n);
    await catalog.submit(register('a'));
    await catalog.submit(register('b'));
    await waiting;
    const ac = new AbortController();
    const aborted = catalog.waitForIndex(10n, ac.signal);
    ac.abort(new Error('gave up'));
    await assert.rejects(aborted, /gave up/);
    await catalog.waitForIndex(0n);
  } finally {
    await catalog.close();
    await log.close();
  }
});

test("two catalogs on one log apply each other's entries; each submit resolves with its own result", async () => {
  const log = createMemoryLog();
  const a = await createCatalog({ log, logger });
  const b = await createCatalog({ log, logger });
  try {
    // In turn, each on the other catalog than the last: a catalog may check a
    // command before it applied the other's latest entry; the outcome is the same.
    const results = [];
    for (const [i, c] of workload.entries()) results.push(await (i % 2 === 0 ? a : b).submit(c));
    assert.deepEqual(
      results.map((r) => r.ok),
      [true, true, true, true, true, false, true],
    );
    assert.deepEqual(
      results.filter((r) => r.ok).map((r) => r.index),
      [2n, 3n, 4n, 5n, 6n, 7n],
    );
    assert.equal(await log.lastIndex(), 7n, 'the refused command was not appended');
    await a.waitForIndex(6n);
    await b.waitForIndex(6n);
    assert.equal(a.snapshot().state, b.snapshot().state);
  } finally {
    await a.close();
    await b.close();
    await log.close();
  }
});

test('close rejects pending and later submits with SHUTTING_DOWN and does not close the log', async () => {
  const log = createMemoryLog();
  const catalog = await createCatalog({ log, logger });
  const waiter = catalog.waitForIndex(5n);
  await catalog.close();
  await assert.rejects(waiter, (err) => isHubError(err, 'SHUTTING_DOWN'));
  await assert.rejects(catalog.submit(register('x')), (err) => isHubError(err, 'SHUTTING_DOWN'));
  assert.deepEqual(await log.append(['{}']), [2n], 'the log is still open (after the origin entry)');
  await log.close();
});

async function runWorkload(path: string, compactEvery: number): Promise<string> {
  const log = createSqliteLog({ path });
  const catalog = await createCatalog({ log, logger, compactEvery, compactKeepTail: 1 });
  for (const c of [...workload, ...kvWorkload]) await catalog.submit(c);
  const state = catalog.snapshot().state;
  await catalog.close();
  await log.close();
  return state;
}

async function reopen(path: string): Promise<{ state: string; log: Log; catalog: Catalog }> {
  const log = createSqliteLog({ path });
  const catalog = await createCatalog({ log, logger });
  return { state: catalog.snapshot().state, log, catalog };
}

test('SQLite: submit, close, reopen gives the identical state', async () => {
  const path = join(dir, 'plain.db');
  const before = await runWorkload(path, 0);
  const { state, log, catalog } = await reopen(path);
  try {
    assert.equal(state, before);
    assert.equal(catalog.serviceInstances('web').value[0]!.Checks[1]!.Status, 'critical');
    assert.equal(catalog.kvGet('lock/s1').value!.Session, 's1');
    assert.deepEqual(
      catalog.sessions().value.map((x) => x.ID),
      ['s1'],
    );
    const r = await catalog.submit(register('n4'));
    assert.equal(r.index, 14n, 'indexes continue after the reopened log');
  } finally {
    await catalog.close();
    await log.close();
  }
});

test('SQLite with compaction: the reopened catalog loads the snapshot and replays the tail to the same state', async () => {
  const path = join(dir, 'compacted.db');
  const before = await runWorkload(path, 3);
  const probe = createSqliteLog({ path });
  const snap = await probe.loadSnapshot();
  const first = await probe.firstIndex();
  await probe.close();
  assert.ok(snap && snap.index >= 3n, 'a snapshot was saved');
  assert.ok(first > 1n, 'old entries were dropped');
  const { state, log, catalog } = await reopen(path);
  try {
    assert.equal(state, before);
    assert.equal(catalog.kvGet('lock/s1').value!.Flags, '3304740253564472344');
    // s2's lock delay on lock/s2 survived the snapshot: another session cannot take it yet.
    const delayed = await catalog.submit({
      type: 'kv',
      op: { verb: 'lock', key: 'lock/s2', value: null, session: 's1' },
      now: 3_000,
    });
    assert.equal(delayed.ok, false);
    assert.match(delayed.error!.message, /lock delay/);
  } finally {
    await catalog.close();
    await log.close();
  }
});

/**
 * A log whose tail for this reader stops after the origin entry (index 1) until
 * `open()` is called, to let compaction overtake it.
 */
function gated(inner: Log): { log: Log; open(): void } {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const log: Log = Object.create(inner) as Log;
  Object.assign(log, {
    tail: async function* (from: bigint, signal: AbortSignal) {
      let next = from;
      if (next <= 1n) {
        for await (const entry of inner.tail(next, signal)) {
          yield entry;
          next = entry.index + 1n;
          if (entry.index >= 1n) break;
        }
      }
      await gate;
      yield* inner.tail(next, signal);
    },
  });
  return { log, open };
}

test("a catalog overtaken by another process's compaction restores the snapshot, fires onReset and continues", async () => {
  const log = createMemoryLog();
  const a = await createCatalog({ log, logger });
  const slow = gated(log);
  const b = await createCatalog({ log: slow.log, logger });
  const resets: bigint[] = [];
  b.onReset((i) => resets.push(i));
  try {
    for (const c of workload.slice(0, 4)) await a.submit(c);
    await log.compact(a.snapshot(), 0);
    slow.open();
    await b.waitForIndex(4n);
    assert.deepEqual(resets, [5n]);
    assert.equal(b.snapshot().state, a.snapshot().state);
    const r = await b.submit(workload[4]!);
    assert.equal(r.index, 6n);
    await a.waitForIndex(5n);
    assert.equal(b.snapshot().state, a.snapshot().state);
  } finally {
    await a.close();
    await b.close();
    await log.close();
  }
});

test('a submit that passes the check but loses a race is refused at apply, spends an index, and is reported', async () => {
  const log = createMemoryLog();
  const lost: string[] = [];
  const a = await createCatalog({ log, logger, onRefusedAtApply: (type) => lost.push(type) });
  const b = await createCatalog({ log, logger });
  try {
    await a.submit(register('n1', { checks: [checkInput('c')] }));
    await b.waitForIndex(1n);
    // Both checks pass against the same applied state; b's deregistration is appended first.
    const removed = b.submit({ type: 'deregister', node: 'n1', checkId: 'c' });
    const update = a.submit({ type: 'check-update', node: 'n1', checkId: 'c', status: 'passing', output: '' });
    const [r1, r2] = await Promise.all([removed, update]);
    assert.deepEqual([r1.ok, r1.index], [true, 3n]);
    assert.deepEqual([r2.ok, r2.error?.code, r2.index], [false, 'NOT_FOUND', 4n]);
    assert.deepEqual(lost, ['check-update']);
    assert.equal(await log.lastIndex(), 4n);
  } finally {
    await a.close();
    await b.close();
    await log.close();
  }
});

test('while sessions exist, catalog writes carry the time, and a lock delay they start runs from it', async () => {
  const log = createMemoryLog();
  const catalog = await createCatalog({ log, logger, now: () => 42_000 });
  try {
    await catalog.submit(register('n1'));
    const s = { ID: 's', Name: '', Node: 'n1', LockDelay: 15e9, Behavior: 'release' as const, TTL: '' };
    await catalog.submit({
      type: 'session-create',
      session: { ...s, NodeChecks: [], ServiceChecks: null },
      now: 1_000,
    });
    await catalog.submit({ type: 'kv', op: { verb: 'lock', key: 'k', value: null, session: 's' }, now: 1_000 });
    await catalog.submit({ type: 'deregister', node: 'n1' });
    const payloads = (await log.read(1n, 100)).map((e) => JSON.parse(e.payload) as { type: string; now?: number });
    assert.equal(payloads.find((p) => p.type === 'register')!.now, undefined, 'no session yet: no time');
    assert.equal(payloads.at(-1)!.now, 42_000);
    await catalog.submit(register('n2'));
    await catalog.submit({
      type: 'session-create',
      session: { ...s, ID: 't', Node: 'n2', NodeChecks: [], ServiceChecks: null },
      now: 1,
    });
    const lock = (now: number) =>
      catalog.submit({ type: 'kv', op: { verb: 'lock', key: 'k', value: null, session: 't' }, now });
    assert.equal((await lock(42_000 + 14_999)).ok, false);
    assert.equal((await lock(42_000 + 15_000)).ok, true);
  } finally {
    await catalog.close();
    await log.close();
  }
});
