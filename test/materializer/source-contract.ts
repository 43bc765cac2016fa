// One contract for every Source: the same framing paths and error paths, seen
// through a materializer, must behave the same whether events come straight
// from the publisher or through a real gRPC server and client.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type CheckServiceNode, type ConfigEntry, Topic } from '../../src/catalog/types';
import { HubError } from '../../src/errors';
import { createMaterializer, type Materializer } from '../../src/materializer/materializer';
import type { Source } from '../../src/materializer/source';
import type { View } from '../../src/materializer/view';
import { configEntriesView } from '../../src/materializer/views/config-entries';
import { healthView } from '../../src/materializer/views/health';
import { serviceListView } from '../../src/materializer/views/service-list';
import type { SubscribeRequest } from '../../src/subscribe/types';
import {
  config,
  csn,
  eos,
  health,
  isDeepFrozen,
  items,
  nstf,
  recordingBackoff,
  resolver,
  serviceName,
} from './fixtures';
import { createScriptedPublisher, type ScriptedPublisher } from './scripted-publisher';

export interface SourceHarness {
  source: Source;
  teardown(): Promise<void>;
}

const WEB: SubscribeRequest = { topic: Topic.ServiceHealth, subject: { key: 'web' }, token: 't', index: 0n };

export function sourceContract(
  name: string,
  makeSource: (publisher: ScriptedPublisher) => Promise<SourceHarness>,
): void {
  describe(`source contract: ${name}`, () => {
    let publisher: ScriptedPublisher;
    let harness: SourceHarness;
    const running: { ac: AbortController; done: Promise<void> }[] = [];

    before(async () => {
      publisher = createScriptedPublisher();
      harness = await makeSource(publisher);
    });
    after(async () => {
      for (const r of running) r.ac.abort();
      await Promise.allSettled(running.map((r) => r.done));
      await harness.teardown();
    });

    function start<T>(view: View<T>, request: SubscribeRequest = WEB) {
      const backoff = recordingBackoff();
      let updates = 0;
      let lastBatch = 0;
      const counting: View<T> = {
        update(events) {
          updates++;
          lastBatch = events.length;
          view.update(events);
        },
        result: (i) => view.result(i),
        reset: () => view.reset(),
      };
      const m: Materializer<T> = createMaterializer({ source: harness.source, request, view: counting, backoff });
      const ac = new AbortController();
      const done = m.run(ac.signal);
      done.catch(() => {}); // awaited by the tests that expect a failure
      running.push({ ac, done });
      return { m, ac, done, backoff, updates: () => updates, lastBatch: () => lastBatch };
    }

    const names = (r: readonly CheckServiceNode[]) => r.map((c) => `${c.Node.Node}/${c.Service.ID}`);
    const a = csn('web', 'web-1', 'node-a');
    const b = csn('web', 'web-1', 'node-b');
    const c = csn('web', 'web-2', 'node-a');

    test('fresh subscription: snapshot collected until EndOfSnapshot and folded in one update, then live events', async () => {
      const { m, ac, updates, lastBatch } = start(healthView({ service: 'web' }));
      const sub = await publisher.next();
      assert.equal(sub.request.index, 0n);
      assert.equal(sub.request.topic, Topic.ServiceHealth);
      assert.equal((sub.request.subject as { key: string }).key, 'web');
      sub.push(items(5, health(5, 'register', b)), items(5, health(5, 'register', a)), eos(5));
      const r5 = await m.waitFor(0n);
      assert.equal(r5.index, 5n);
      assert.deepEqual(names(r5.value), ['node-a/web-1', 'node-b/web-1']);
      assert.deepEqual(r5.value[0], a);
      assert.equal(updates(), 1);
      assert.equal(lastBatch(), 2);

      sub.push(items(7, health(7, 'register', c)));
      const r7 = await m.waitFor(5n);
      assert.equal(r7.index, 7n);
      assert.deepEqual(names(r7.value), ['node-a/web-1', 'node-a/web-2', 'node-b/web-1']);
      // One entry's events together (an EventBatch on the wire) fold in one update.
      sub.push(items(8, health(8, 'deregister', a), health(8, 'deregister', b)));
      const r8 = await m.waitFor(7n);
      assert.equal(r8.index, 8n);
      assert.deepEqual(names(r8.value), ['node-a/web-2']);
      assert.equal(updates(), 3);
      assert.equal(lastBatch(), 2);
      // Results handed out earlier are untouched and frozen.
      assert.deepEqual(names(r5.value), ['node-a/web-1', 'node-b/web-1']);
      assert.ok(isDeepFrozen(r5) && isDeepFrozen(r7) && isDeepFrozen(r8));
      ac.abort();
      await sub.cancelled;
    });

    test('resume without framing: a dropped stream resumes at the current index and gets live events only', async () => {
      const { m, ac, backoff } = start(healthView({ service: 'web' }));
      const sub = await publisher.next();
      sub.push(items(5, health(5, 'register', a)), eos(5));
      await m.waitFor(0n);
      sub.fail(new HubError('SHUTTING_DOWN', 'server is shutting down'));
      const sub2 = await publisher.next();
      assert.equal(sub2.request.index, 5n);
      assert.deepEqual(backoff.delays, [0]);
      assert.equal(m.index(), 5n, 'a transient error keeps the view');
      sub2.push(items(6, health(6, 'register', b)));
      const r6 = await m.waitFor(5n);
      assert.equal(r6.index, 6n);
      assert.deepEqual(names(r6.value), ['node-a/web-1', 'node-b/web-1']);
      ac.abort();
    });

    test('resume with NewSnapshotToFollow: the view resets and a new snapshot replaces it', async () => {
      const { m, ac } = start(healthView({ service: 'web' }));
      const sub = await publisher.next();
      sub.push(items(5, health(5, 'register', a), health(5, 'register', b)), eos(5));
      const r5 = await m.waitFor(0n);
      sub.fail(new HubError('SLOW_CONSUMER', 'too slow'));
      const sub2 = await publisher.next();
      assert.equal(sub2.request.index, 5n);
      sub2.push(nstf, items(9, health(9, 'register', c)), eos(9));
      const r9 = await m.waitFor(5n);
      assert.equal(r9.index, 9n);
      assert.deepEqual(names(r9.value), ['node-a/web-2']);
      assert.deepEqual(names(r5.value), ['node-a/web-1', 'node-b/web-1'], 'a held result survives the reset');
      sub2.push(items(10, health(10, 'register', a)));
      assert.deepEqual(names((await m.waitFor(9n)).value), ['node-a/web-1', 'node-a/web-2']);
      ac.abort();
    });

    test('ABORTED: the view resets to index 0 and resubscribes from 0 at once', async () => {
      const { m, ac, backoff } = start(healthView({ service: 'web' }));
      const sub = await publisher.next();
      sub.push(items(5, health(5, 'register', a)), eos(5));
      const r5 = await m.waitFor(0n);
      sub.fail(
        new HubError('SUBSCRIPTION_RESET', 'subscription closed by server, client must reset state and resubscribe'),
      );
      const sub2 = await publisher.next();
      assert.equal(sub2.request.index, 0n);
      assert.equal(m.index(), 0n);
      assert.deepEqual(backoff.delays, [0]);
      const waiting = m.waitFor(0n);
      sub2.push(items(12, health(12, 'register', b)), eos(12));
      const r12 = await waiting;
      assert.equal(r12.index, 12n);
      assert.deepEqual(names(r12.value), ['node-b/web-1']);
      assert.deepEqual(names(r5.value), ['node-a/web-1']);
      ac.abort();
    });

    test('transient failures back off (0, then growing) and a successful update resets the backoff', async () => {
      const { m, ac, backoff } = start(healthView({ service: 'web' }));
      const s1 = await publisher.next();
      s1.push(items(3, health(3, 'register', a)), eos(3));
      await m.waitFor(0n);
      s1.fail(new HubError('SHUTTING_DOWN', 'gone'));
      const s2 = await publisher.next();
      s2.fail(new HubError('SHUTTING_DOWN', 'gone again'));
      const s3 = await publisher.next();
      assert.equal(s3.request.index, 3n);
      assert.equal(backoff.delays.length, 2);
      assert.equal(backoff.delays[0], 0);
      assert.ok(backoff.delays[1]! > 0, `second consecutive failure waits (got ${backoff.delays[1]})`);
      s3.push(items(4, health(4, 'register', b)));
      await m.waitFor(3n);
      s3.fail(new HubError('SHUTTING_DOWN', 'and again'));
      const s4 = await publisher.next();
      assert.equal(backoff.delays[2], 0, 'backoff reset by the update');
      assert.equal(s4.request.index, 4n);
      ac.abort();
    });

    test('a stream that ends without an error is resumed at the current index', async () => {
      const { m, ac } = start(healthView({ service: 'web' }));
      const s1 = await publisher.next();
      s1.push(items(3, health(3, 'register', a)), eos(3));
      await m.waitFor(0n);
      s1.end();
      const s2 = await publisher.next();
      assert.equal(s2.request.index, 3n);
      ac.abort();
    });

    test('an EndOfSnapshot outside a snapshot resets the view and resubscribes from 0', async () => {
      const { m, ac } = start(healthView({ service: 'web' }));
      const s1 = await publisher.next();
      s1.push(items(3, health(3, 'register', a)), eos(3));
      await m.waitFor(0n);
      s1.push(eos(4));
      const s2 = await publisher.next();
      assert.equal(s2.request.index, 0n);
      assert.equal(m.index(), 0n);
      await s1.cancelled;
      ac.abort();
    });

    test('terminal: a refused token fails the run and every waiter with PERMISSION_DENIED', async () => {
      const { m, done } = start(healthView({ service: 'web' }));
      const s1 = await publisher.next();
      const waiter = assert.rejects(
        m.waitFor(0n),
        (e: unknown) => e instanceof HubError && e.code === 'PERMISSION_DENIED',
      );
      s1.fail(new HubError('PERMISSION_DENIED', 'ACL not found'));
      await assert.rejects(done, (e: unknown) => e instanceof HubError && e.code === 'PERMISSION_DENIED');
      await waiter;
      await assert.rejects(m.waitFor(0n), (e: unknown) => e instanceof HubError && e.code === 'PERMISSION_DENIED');
      assert.equal(m.state, 'failed');
    });

    test('terminal: an invalid request fails the run with INVALID_ARGUMENT', async () => {
      const { done } = start(healthView({ service: 'web' }));
      const s1 = await publisher.next();
      s1.fail(new HubError('INVALID_ARGUMENT', 'Key: required', { field: 'Key' }));
      await assert.rejects(done, (e: unknown) => e instanceof HubError && e.code === 'INVALID_ARGUMENT');
    });

    test('config entries: a wildcard snapshot in one batch, upserts and deletes', async () => {
      const request: SubscribeRequest = {
        topic: Topic.ServiceResolver,
        subject: { wildcard: true },
        token: 't',
        index: 0n,
      };
      const { m, ac } = start(configEntriesView({ kind: 'service-resolver' }), request);
      const sub = await publisher.next();
      assert.equal(sub.request.subject.wildcard, true);
      assert.equal(sub.request.topic, Topic.ServiceResolver);
      const web = resolver('web', 4, { DefaultSubset: 'v1', ConnectTimeout: '5s' });
      const api = resolver('api', 3);
      sub.push(items(4, config(4, 'upsert', web), config(4, 'upsert', api)), eos(4));
      const r4 = await m.waitFor(0n);
      assert.deepEqual(
        r4.value.map((e: ConfigEntry) => e.Name),
        ['api', 'web'],
      );
      assert.deepEqual(r4.value[1], web);
      sub.push(items(6, config(6, 'delete', api)));
      const r6 = await m.waitFor(4n);
      assert.deepEqual(
        r6.value.map((e: ConfigEntry) => e.Name),
        ['web'],
      );
      ac.abort();
    });

    test('service list: snapshot and changes', async () => {
      const request: SubscribeRequest = {
        topic: Topic.ServiceList,
        subject: { wildcard: true },
        token: 't',
        index: 0n,
      };
      const { m, ac } = start(serviceListView(), request);
      const sub = await publisher.next();
      sub.push(items(2, serviceName(2, 'register', 'web'), serviceName(2, 'register', 'api')), eos(2));
      const r2 = await m.waitFor(0n);
      assert.deepEqual(r2.value, [
        { Name: 'api', Namespace: 'default', Partition: 'default' },
        { Name: 'web', Namespace: 'default', Partition: 'default' },
      ]);
      sub.push(items(3, serviceName(3, 'deregister', 'api')));
      assert.deepEqual(
        (await m.waitFor(2n)).value.map((s) => s.Name),
        ['web'],
      );
      ac.abort();
    });

    test('stopping the materializer cancels the subscription and fails waiters with SHUTTING_DOWN', async () => {
      const { m, ac, done } = start(healthView({ service: 'web' }));
      const sub = await publisher.next();
      const waiter = assert.rejects(m.waitFor(0n), (e: unknown) => e instanceof HubError && e.code === 'SHUTTING_DOWN');
      ac.abort();
      await sub.cancelled;
      await done;
      await waiter;
      assert.equal(m.state, 'stopped');
    });
  });
}
