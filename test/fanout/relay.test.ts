// The fan-out relay (src/fanout/relay.ts) against a scripted upstream: what its
// downstream subscribers receive when they start, resume, and when the upstream
// drops the stream, answers with a new snapshot, or comes back with a lower index.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type CatalogEvent, type CheckServiceNode, Topic } from '../../src/catalog/types';
import { HubError, isHubError } from '../../src/errors';
import { createRelayPublisher } from '../../src/fanout/relay';
import { createBackoff } from '../../src/materializer/backoff';
import type { Source } from '../../src/materializer/source';
import type { StreamItem, SubscribeRequest } from '../../src/subscribe/types';

/** An upstream whose every subscription is a queue the test pushes into (or fails). */
function scriptedUpstream() {
  const calls: { request: SubscribeRequest; push(item: StreamItem): void; fail(err: HubError): void }[] = [];
  const waiting: (() => void)[] = [];
  const source: Source = {
    subscribe(request, signal) {
      const items: (StreamItem | HubError)[] = [];
      let wake: (() => void) | undefined;
      const call = {
        request,
        push: (item: StreamItem) => {
          items.push(item);
          wake?.();
        },
        fail: (err: HubError) => {
          items.push(err);
          wake?.();
        },
      };
      calls.push(call);
      waiting.splice(0).forEach((w) => w());
      return {
        async *[Symbol.asyncIterator]() {
          while (!signal.aborted) {
            const next = items.shift();
            if (next instanceof HubError) throw next;
            if (next) yield next;
            else
              await new Promise<void>((r) => {
                wake = r;
                signal.addEventListener('abort', () => r(), { once: true });
              });
          }
        },
      };
    },
    close() {},
  };
  /** The n-th subscription (0-based), once it was made. */
  async function call(n: number) {
    while (calls.length <= n) await new Promise<void>((r) => waiting.push(r));
    return calls[n]!;
  }
  return { source, call };
}

const csn = (node: string, id: string, port: number) =>
  ({
    Node: { Node: node },
    Service: { ID: id, Service: 'web', Port: port },
    Checks: [],
  }) as unknown as CheckServiceNode;
const health = (index: bigint, op: 'register' | 'deregister', c: CheckServiceNode): CatalogEvent => ({
  topic: Topic.ServiceHealth,
  subject: 'web',
  index,
  payload: { type: 'service-health', op, csn: c },
});
const events = (index: bigint, ...e: CatalogEvent[]): StreamItem => ({ kind: 'events', index, events: e });
const end = (index: bigint): StreamItem => ({ kind: 'end-of-snapshot', index });
const request = (index = 0n): SubscribeRequest => ({
  topic: Topic.ServiceHealth,
  subject: { key: 'web' },
  token: '',
  index,
});

type Up = ReturnType<typeof scriptedUpstream>;
type Relay = ReturnType<typeof createRelayPublisher>;

/** A relay over a fresh scripted upstream (retries at once), and a subscribe that opens a stream; closed after `body`. */
async function withRelay(
  body: (up: Up, relay: Relay, open: (index?: bigint) => AsyncIterator<StreamItem>) => Promise<void>,
): Promise<void> {
  const up = scriptedUpstream();
  const relay = createRelayPublisher({ source: up.source, backoff: () => createBackoff({ baseMs: 1, maxMs: 1 }) });
  const stop = new AbortController();
  try {
    await body(up, relay, (index = 0n) => relay.subscribe(request(index), stop.signal)[Symbol.asyncIterator]());
  } finally {
    stop.abort();
    relay.close();
  }
}

/** Reads `n` items from a subscription (a fresh iterator each time continues the same stream). */
async function take(it: AsyncIterator<StreamItem>, n: number): Promise<StreamItem[]> {
  const out: StreamItem[] = [];
  while (out.length < n) {
    const r = await it.next();
    if (r.done) break;
    out.push(r.value);
  }
  return out;
}

const ports = (items: StreamItem[]) =>
  items.map((i) =>
    i.kind === 'events'
      ? `${i.index}:${i.events.map((e) => `${e.payload.op}/${(e.payload as { csn: CheckServiceNode }).csn.Service.Port}`).join(',')}`
      : i.kind,
  );

test('snapshot, live events, resume by index, and a new snapshot for an index the relay cannot vouch for', async () => {
  await withRelay(async (up, relay, open) => {
    const first = open();
    const upstream = await up.call(0);
    assert.equal(upstream.request.index, 0n);
    upstream.push(events(10n, health(10n, 'register', csn('n1', 'a', 1))));
    upstream.push(end(10n));
    assert.deepEqual(ports(await take(first, 2)), ['10:register/1', 'end-of-snapshot']);
    upstream.push(events(11n, health(11n, 'register', csn('n2', 'b', 2))));
    assert.deepEqual(ports(await take(first, 1)), ['11:register/2']);
    assert.equal(relay.lastChangeIndex(request()), 11n);

    // A client at 10 resumes: only what came after.
    const resumed = open(10n);
    assert.deepEqual(ports(await take(resumed, 1)), ['11:register/2']);
    // A client from another log (index ahead of the relay) starts over.
    const ahead = open(99n);
    assert.deepEqual(ports(await take(ahead, 4)), [
      'new-snapshot-to-follow',
      '11:register/1',
      '11:register/2',
      'end-of-snapshot',
    ]);
  });
});

test('the upstream drops the stream and answers the resume with a new snapshot: downstream gets only the difference, never a reset', async () => {
  await withRelay(async (up, _relay, open) => {
    const sub = open();
    const first = await up.call(0);
    first.push(events(5n, health(5n, 'register', csn('n1', 'a', 1)), health(5n, 'register', csn('n2', 'b', 2))));
    first.push(end(5n));
    assert.equal((await take(sub, 3)).length, 3);

    first.fail(new HubError('SHUTTING_DOWN', 'upstream restarting'));
    const second = await up.call(1);
    assert.equal(second.request.index, 5n, 'resumes from the index it holds');
    // The new upstream cannot resume it: a new snapshot where b moved and c appeared.
    second.push({ kind: 'new-snapshot-to-follow' });
    second.push(events(8n, health(8n, 'register', csn('n1', 'a', 1))));
    second.push(events(8n, health(8n, 'register', csn('n2', 'b', 20))));
    second.push(events(8n, health(8n, 'register', csn('n3', 'c', 3))));
    second.push(end(8n));
    assert.deepEqual(ports(await take(sub, 1)), ['8:register/20,register/3']);

    // ABORTED upstream (state replaced, same log): a fresh snapshot, diffed the same way.
    second.fail(new HubError('SUBSCRIPTION_RESET', 'state replaced'));
    const third = await up.call(2);
    assert.equal(third.request.index, 0n);
    third.push(events(9n, health(9n, 'register', csn('n1', 'a', 1))));
    third.push(events(9n, health(9n, 'register', csn('n2', 'b', 20))));
    third.push(end(9n));
    assert.deepEqual(ports(await take(sub, 1)), ['9:deregister/3']);
  });
});

test('an upstream whose index went backwards (another log) resets the downstream streams', async () => {
  await withRelay(async (up, _relay, open) => {
    const sub = open();
    const first = await up.call(0);
    first.push(events(50n, health(50n, 'register', csn('n1', 'a', 1))));
    first.push(end(50n));
    await take(sub, 2);
    first.fail(new HubError('SHUTTING_DOWN', 'gone'));
    const second = await up.call(1);
    second.push({ kind: 'new-snapshot-to-follow' });
    second.push(end(3n));
    await assert.rejects(sub.next(), (err: unknown) => isHubError(err, 'SUBSCRIPTION_RESET'));
    // A new subscriber gets the new log's state.
    const again = open();
    assert.deepEqual(ports(await take(again, 1)), ['end-of-snapshot']);
  });
});

test('waitApplied resolves once the relays for the changed keys reach the index (keys with no relay need no wait)', async () => {
  await withRelay(async (up, relay, open) => {
    const sub = open();
    const upstream = await up.call(0);
    upstream.push(end(4n));
    await take(sub, 1);
    await relay.waitApplied([`${Topic.ServiceHealth}|other`], 7n, AbortSignal.timeout(60_000));
    let done = false;
    const waited = relay
      .waitApplied([`${Topic.ServiceHealth}|web`], 7n, AbortSignal.timeout(60_000))
      .then(() => (done = true));
    upstream.push(events(6n, health(6n, 'register', csn('n1', 'a', 1))));
    await take(sub, 1);
    assert.equal(done, false, 'index 6 is not 7');
    upstream.push(events(7n, health(7n, 'deregister', csn('n1', 'a', 1))));
    await waited;
    assert.equal(relay.lastChangeIndex(request()), 7n, 'resolved by the index, not by the hang guard');
  });
});
