import assert from 'node:assert/strict';
import { test } from 'node:test';
import pino from 'pino';
import { createAuthorizer } from '../../src/acl/authorizer';
import { emptyRules } from '../../src/acl/rules';
import { Topic } from '../../src/catalog/types';
import { isHubError } from '../../src/errors';
import { createPublisher, type PublisherOptions, RESET_MESSAGE } from '../../src/subscribe/publisher';
import type { StreamItem, SubscribeRequest } from '../../src/subscribe/types';
import { createFakeCatalog } from './fake-catalog';

const logger = pino({ level: 'silent' });

function setup(extra: Partial<PublisherOptions> = {}) {
  const catalog = createFakeCatalog();
  const publisher = createPublisher({ catalog, snapshotCacheTtlMs: 10_000, logger, ...extra });
  return { catalog, publisher };
}

function req(topic: Topic, key: string | null, index = 0n, token = ''): SubscribeRequest {
  return { topic, subject: key === null ? { wildcard: true } : { key }, token, index };
}

/** Pulls exactly n items. */
async function take(it: AsyncIterator<StreamItem>, n: number): Promise<StreamItem[]> {
  const out: StreamItem[] = [];
  while (out.length < n) {
    const r = await it.next();
    assert.equal(r.done, false, `stream ended after ${out.length} of ${n} items`);
    out.push(r.value);
  }
  return out;
}

function summary(items: StreamItem[]): string[] {
  return items.map((i) =>
    i.kind === 'events'
      ? `${i.index}:${i.events.map((e) => (e.payload.type === 'service-health' ? `${e.payload.op}-${e.payload.csn.Service.ID}` : e.payload.type === 'config-entry' ? `${e.payload.op}-${e.payload.entry.Name}` : `${e.payload.op}-${e.payload.name}`)).join(',')}`
      : i.kind === 'end-of-snapshot'
        ? `eos@${i.index}`
        : 'nstf',
  );
}

function open(p: ReturnType<typeof setup>['publisher'], r: SubscribeRequest) {
  const ac = new AbortController();
  const sub = p.subscribe(r, ac.signal);
  return { it: sub[Symbol.asyncIterator](), ac, sub };
}

test('index 0: one item per instance, EndOfSnapshot at the snapshot index, then live items', async () => {
  const { catalog, publisher } = setup();
  catalog.register('web', 'w1');
  catalog.register('web', 'w2');
  catalog.register('db', 'd1');
  const { it, ac } = open(publisher, req(Topic.ServiceHealth, 'Web'));
  assert.deepEqual(summary(await take(it, 3)), ['3:register-w1', '3:register-w2', 'eos@3']);
  catalog.register('db', 'd2'); // other subject: not delivered
  catalog.registerMany('web', ['w3', 'w4']);
  assert.deepEqual(summary(await take(it, 1)), ['5:register-w3,register-w4']);
  ac.abort();
  assert.equal((await it.next()).done, true);
  assert.equal(publisher.stats().subscribers, 0);
  assert.equal(publisher.stats().buffers, 1, 'the cached snapshot keeps its buffer');
});

test('empty log: snapshot index is 1, never 0', async () => {
  const { publisher } = setup();
  const { it, ac } = open(publisher, req(Topic.ServiceHealth, 'web'));
  assert.deepEqual(summary(await take(it, 1)), ['eos@1']);
  ac.abort();
});

test('config and service-list snapshots arrive as one item; wildcard sees every subject', async () => {
  const { catalog, publisher } = setup();
  catalog.setConfig('service-defaults', 'a', { Protocol: 'http' });
  catalog.setConfig('service-defaults', 'b');
  catalog.register('web', 'w1');
  catalog.register('api', 'a1');
  const cfg = open(publisher, req(Topic.ServiceDefaults, null));
  assert.deepEqual(summary(await take(cfg.it, 2)), ['4:upsert-a,upsert-b', 'eos@4']);
  const named = open(publisher, req(Topic.ServiceDefaults, 'b'));
  assert.deepEqual(summary(await take(named.it, 2)), ['4:upsert-b', 'eos@4']);
  const list = open(publisher, req(Topic.ServiceList, null));
  assert.deepEqual(summary(await take(list.it, 2)), ['4:register-api,register-web', 'eos@4']);
  catalog.setConfig('service-defaults', 'c');
  assert.deepEqual(summary(await take(cfg.it, 1)), ['5:upsert-c']);
  catalog.setConfig('service-defaults', 'b', { Protocol: 'grpc' });
  assert.deepEqual(summary(await take(cfg.it, 1)), ['6:upsert-b']);
  assert.deepEqual(summary(await take(named.it, 1)), ['6:upsert-b']);
  catalog.register('cache', 'c1');
  assert.deepEqual(summary(await take(list.it, 1)), ['7:register-cache']);
  for (const s of [cfg, named, list]) s.ac.abort();
});

test("resume: index equal to the subject's newest event gives live events only", async () => {
  const { catalog, publisher } = setup();
  catalog.register('web', 'w1');
  const i2 = catalog.register('web', 'w2');
  catalog.noop();
  const { it, ac } = open(publisher, req(Topic.ServiceHealth, 'web', i2));
  catalog.register('web', 'w3');
  assert.deepEqual(summary(await take(it, 1)), ['4:register-w3']);
  assert.equal(publisher.stats().resumes, 1);
  ac.abort();
});

test("resume also from a snapshot index newer than the subject's last change", async () => {
  const { catalog, publisher } = setup();
  catalog.register('web', 'w1');
  catalog.register('db', 'd1');
  const first = open(publisher, req(Topic.ServiceHealth, 'web'));
  const snap = await take(first.it, 2);
  assert.deepEqual(summary(snap), ['2:register-w1', 'eos@2']);
  first.ac.abort();
  const again = open(publisher, req(Topic.ServiceHealth, 'web', 2n));
  catalog.deregister('web', 'w1');
  assert.deepEqual(summary(await take(again.it, 1)), ['3:deregister-w1']);
  again.ac.abort();
});

test('stale index: NewSnapshotToFollow, snapshot, EndOfSnapshot, live', async () => {
  const { catalog, publisher } = setup();
  const i1 = catalog.register('web', 'w1');
  catalog.register('web', 'w2');
  const { it, ac } = open(publisher, req(Topic.ServiceHealth, 'web', i1));
  assert.deepEqual(summary(await take(it, 4)), ['nstf', '2:register-w1', '2:register-w2', 'eos@2']);
  catalog.deregister('web', 'w2');
  assert.deepEqual(summary(await take(it, 1)), ['3:deregister-w2']);
  ac.abort();
  // An index from the future (another log) is stale too.
  const future = open(publisher, req(Topic.ServiceHealth, 'web', 99n));
  assert.deepEqual(summary(await take(future.it, 1)), ['nstf']);
  future.ac.abort();
});

test('a cached snapshot is shared and followed by the events since it was built', async () => {
  const { catalog, publisher } = setup();
  catalog.register('web', 'w1');
  const a = open(publisher, req(Topic.ServiceHealth, 'web'));
  const aItems = await take(a.it, 2);
  catalog.register('web', 'w2');
  const b = open(publisher, req(Topic.ServiceHealth, 'web'));
  const bItems = await take(b.it, 3);
  assert.deepEqual(summary(bItems), ['1:register-w1', 'eos@1', '2:register-w2']);
  assert.equal(bItems[0], aItems[0], 'the same item object, so its encoding is shared');
  assert.deepEqual(publisher.stats().snapshotCacheHits, 1);
  a.ac.abort();
  b.ac.abort();
});

test('without a cache every snapshot is rebuilt', async () => {
  const { catalog, publisher } = setup({ snapshotCacheTtlMs: 0 });
  catalog.register('web', 'w1');
  for (let i = 0; i < 2; i++) {
    const s = open(publisher, req(Topic.ServiceHealth, 'web'));
    await take(s.it, 2);
    s.ac.abort();
  }
  assert.equal(publisher.stats().snapshotCacheMisses, 2);
  assert.equal(publisher.stats().buffers, 0);
});

test('bad requests are refused with INVALID_ARGUMENT and Consul wording', () => {
  const { publisher } = setup();
  const ac = new AbortController();
  const cases: [SubscribeRequest, RegExp][] = [
    [req(99 as Topic, 'x'), /unknown topic 99/],
    [req(Topic.Unknown, 'x'), /unknown topic 0/],
    [req(Topic.ServiceHealth, ''), /either WildcardSubject or NamedSubject.Key is required/],
    [req(Topic.ServiceHealth, null), /topic ServiceHealth does not support wildcard subscriptions/],
    [req(Topic.ServiceHealthConnect, null), /does not support wildcard/],
    [req(Topic.ServiceList, 'web'), /topic ServiceList can only be consumed using WildcardSubject/],
  ];
  for (const [r, message] of cases) {
    assert.throws(
      () => publisher.subscribe(r, ac.signal),
      (e: unknown) => isHubError(e, 'INVALID_ARGUMENT') && message.test(e.message),
    );
  }
  assert.equal(publisher.stats().buffers, 0);
});

test('restore ends every stream with SUBSCRIPTION_RESET; close with SHUTTING_DOWN', async () => {
  const { catalog, publisher } = setup();
  catalog.register('web', 'w1');
  const a = open(publisher, req(Topic.ServiceHealth, 'web'));
  await take(a.it, 2);
  const pending = a.it.next();
  catalog.restore();
  await assert.rejects(pending, (e: unknown) => isHubError(e, 'SUBSCRIPTION_RESET') && e.message === RESET_MESSAGE);
  assert.ok(isHubError(await a.sub.closed, 'SUBSCRIPTION_RESET'));
  const b = open(publisher, req(Topic.ServiceHealth, 'web'));
  await take(b.it, 1);
  publisher.close();
  await assert.rejects(b.it.next(), (e: unknown) => isHubError(e, 'SHUTTING_DOWN'));
  assert.throws(
    () => publisher.subscribe(req(Topic.ServiceHealth, 'web'), new AbortController().signal),
    (e: unknown) => isHubError(e, 'SHUTTING_DOWN'),
  );
  assert.equal(publisher.stats().subscribers, 0);
});

test('a subscriber that falls more than maxLag behind is ended with SLOW_CONSUMER, then gets a new snapshot', async () => {
  const { catalog, publisher } = setup({ maxLag: 16 });
  catalog.register('web', 'w0');
  const slow = open(publisher, req(Topic.ServiceHealth, 'web'));
  const fast = open(publisher, req(Topic.ServiceHealth, 'web'));
  await take(slow.it, 2);
  let fastIndex = 0n;
  for (let i = 1; i <= 40; i++) {
    catalog.register('web', `w${i}`);
    const [item] = await take(fast.it, i === 1 ? 3 : 1).then((x) => x.slice(-1));
    fastIndex = (item as { index: bigint }).index;
  }
  assert.ok(isHubError(await slow.sub.closed, 'SLOW_CONSUMER'));
  // The slow one may still hold items it was handed; draining ends in the error.
  await assert.rejects(
    async () => {
      for (;;) if ((await slow.it.next()).done) return;
    },
    (e: unknown) => isHubError(e, 'SLOW_CONSUMER') && e.message === 'subscriber too slow',
  );
  assert.equal(fastIndex, 41n);
  assert.equal(publisher.stats().slowConsumers, 1);
  const back = open(publisher, req(Topic.ServiceHealth, 'web', 1n));
  assert.deepEqual(summary(await take(back.it, 1)), ['nstf']);
  back.ac.abort();
  fast.ac.abort();
});

test("events the request's authorizer may not read never arrive, and the rest keep their order", async () => {
  const rules = { ...emptyRules(), service_prefix: { '': 'read' as const }, node: { node1: 'read' as const } };
  const authorizer = createAuthorizer(rules, { accessorId: 'a-1', defaultPolicy: 'deny' });
  const { catalog, publisher } = setup();
  catalog.register('web', 'w1');
  catalog.register('web', 'secret1'); // on secret-node, which the token may not read
  const { it, ac } = open(publisher, { ...req(Topic.ServiceHealth, 'web', 0n, 'tok-1'), authorizer });
  assert.deepEqual(summary(await take(it, 2)), ['2:register-w1', 'eos@2']);
  catalog.register('web', 'secret2');
  catalog.registerMany('web', ['secret3', 'w2']);
  assert.deepEqual(summary(await take(it, 1)), ['4:register-w2']);
  ac.abort();
});
