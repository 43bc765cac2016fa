// Property test: random provider changes, subscription changes, ACKs, NACKs
// and stale nonces against one Delta stream. After every step: at most one
// un-ACKed response, no name twice in a response, nothing outside the
// subscription. At the end, once every response is answered, the client's
// view equals what its subscription covers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { TypeUrl } from '../../../src/xds/transport/type-urls';
import { decodeResponse } from '../../../src/xds/transport/wire';
import { recordingCall, startFakeStream } from './helpers/fake-stream';
import { cluster, TestProvider } from './helpers/fixtures';

const CDS = TypeUrl.Cluster;
const NAMES = ['a', 'b', 'c', 'd'];

type Op =
  | { op: 'put'; name: string; content: number }
  | { op: 'remove'; name: string }
  | { op: 'subscribe'; names: string[] }
  | { op: 'unsubscribe'; names: string[] }
  | { op: 'ack' }
  | { op: 'nack' }
  | { op: 'stale' };

const name = fc.constantFrom(...NAMES, '*');
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    op: fc.constant('put' as const),
    name: fc.constantFrom(...NAMES),
    content: fc.integer({ min: 1, max: 3 }),
  }),
  fc.record({ op: fc.constant('remove' as const), name: fc.constantFrom(...NAMES) }),
  fc.record({ op: fc.constant('subscribe' as const), names: fc.array(name, { maxLength: 3 }) }),
  fc.record({ op: fc.constant('unsubscribe' as const), names: fc.array(name, { minLength: 1, maxLength: 2 }) }),
  fc.constant({ op: 'ack' as const }),
  fc.constant({ op: 'nack' as const }),
  fc.constant({ op: 'stale' as const }),
);

function run(first: readonly string[], ops: Op[]): void {
  const p = new TestProvider();
  p.set(cluster('a'), cluster('b'));
  const { call, written } = recordingCall();
  const { stream, send, changed, put, remove } = startFakeStream(call, p, 'delta', 'CDS');

  // The client: what it holds, and what it thinks it subscribes to.
  const held = new Map<string, string>();
  let wildcard = false;
  const named = new Set<string>();
  let read = 0;
  let unanswered: { nonce: string; before: Map<string, string>; dropped: Set<string> } | undefined;
  let oldNonce = 'never-sent';

  const readNew = () => {
    for (; read < written.length; read++) {
      const r = decodeResponse('v3', 'DeltaDiscoveryResponse', written[read]!);
      assert.equal(unanswered, undefined, 'a second response before the first was answered');
      const before = new Map(held);
      const names = [...r.resources.map((x: { name: string }) => x.name), ...r.removedResources];
      assert.equal(new Set(names).size, names.length, 'a name twice in one response');
      for (const x of r.resources as { name: string; version: string }[]) {
        assert.ok(wildcard || named.has(x.name), `sent ${x.name} outside the subscription`);
        held.set(x.name, x.version);
      }
      for (const n of r.removedResources as string[]) held.delete(n);
      unanswered = { nonce: r.nonce, before, dropped: new Set() };
    }
  };
  const answer = (nack: boolean) => {
    if (!unanswered) return;
    oldNonce = unanswered.nonce;
    send({
      typeUrl: CDS,
      responseNonce: unanswered.nonce,
      ...(nack ? { errorDetail: { code: 3, message: 'no' } } : {}),
    });
    if (nack) {
      // A rejecting client keeps its last good state, minus what it unsubscribed since.
      held.clear();
      for (const [n, v] of unanswered.before) if (!unanswered.dropped.has(n)) held.set(n, v);
    }
    unanswered = undefined;
  };

  send({ node: { id: 'n' }, typeUrl: CDS, resourceNamesSubscribe: first });
  if (first.length === 0 || first.includes('*')) wildcard = true;
  for (const n of first) if (n !== '*') named.add(n);
  readNew();
  for (const o of ops) {
    if (o.op === 'put') put(cluster(o.name, o.content));
    else if (o.op === 'remove') remove(CDS, o.name);
    else if (o.op === 'subscribe') {
      for (const n of o.names) n === '*' ? (wildcard = true) : named.add(n);
      send({ typeUrl: CDS, resourceNamesSubscribe: o.names });
    } else if (o.op === 'unsubscribe') {
      for (const n of o.names) {
        if (n === '*') wildcard = false;
        else if (named.delete(n)) {
          held.delete(n); // a client drops what it unsubscribes
          unanswered?.dropped.add(n);
        }
      }
      send({ typeUrl: CDS, resourceNamesUnsubscribe: o.names });
    } else if (o.op === 'stale') {
      send({ typeUrl: CDS, responseNonce: oldNonce });
    } else answer(o.op === 'nack');
    readNew();
    assert.ok(stream.stats.maxUnackedPerType <= 1);
  }
  // Every resource gets new content (so NACKed versions are superseded), then the client answers until quiet.
  for (const n of NAMES) if (p.get(CDS, stream.node!).byName.has(n)) p.set(cluster(n, 9));
  changed(CDS, NAMES);
  readNew();
  for (let i = 0; unanswered && i < 20; i++) {
    answer(false);
    readNew();
  }
  const set = p.get(CDS, stream.node!);
  const expected = new Map<string, string>();
  for (const [n, res] of set.byName)
    if ((wildcard && set.wildcard.has(n)) || named.has(n)) expected.set(n, res.version);
  // Names the client holds because the wildcard once covered them go when it ends (the server says so).
  assert.deepEqual(new Map([...held].sort()), new Map([...expected].sort()));
}

test('Delta model: bounded in flight, only subscribed names, converges to the subscription', () => {
  fc.assert(
    fc.property(fc.constantFrom([], ['*'], ['a'], ['a', 'c']), fc.array(opArb, { maxLength: 30 }), (first, ops) =>
      run(first, ops),
    ),
    { numRuns: 300 },
  );
});
