// Property test for one SotW CDS stream: random provider changes, requests
// (whole name lists, `*`, empty), ACKs, NACKs and stale nonces. After every
// step: at most one un-ACKed response, no name twice, nothing outside the
// subscription. At the end, once every response is answered, what the client
// holds of what it asks for equals what its subscription covers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { TypeUrl } from '../../../src/xds/transport/type-urls';
import { decodeResponse } from '../../../src/xds/transport/wire';
import { decodeAny } from './helpers/client';
import { recordingCall, startFakeStream } from './helpers/fake-stream';
import { cluster, TestProvider } from './helpers/fixtures';

const CDS = TypeUrl.Cluster;
const NAMES = ['a', 'b', 'c', 'd'];

type Op =
  | { op: 'put'; name: string; content: number }
  | { op: 'remove'; name: string }
  | { op: 'request'; names: string[] }
  | { op: 'ack' }
  | { op: 'nack' }
  | { op: 'stale' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    op: fc.constant('put' as const),
    name: fc.constantFrom(...NAMES),
    content: fc.integer({ min: 1, max: 3 }),
  }),
  fc.record({ op: fc.constant('remove' as const), name: fc.constantFrom(...NAMES) }),
  fc.record({
    op: fc.constant('request' as const),
    names: fc.uniqueArray(fc.constantFrom(...NAMES, '*'), { maxLength: 3 }),
  }),
  fc.constant({ op: 'ack' as const }),
  fc.constant({ op: 'nack' as const }),
  fc.constant({ op: 'stale' as const }),
);

function run(first: string[], ops: Op[]): void {
  const p = new TestProvider();
  p.set(cluster('a'), cluster('b'));
  const { call, written } = recordingCall();
  const { stream, send, changed, put, remove } = startFakeStream(call, p, 'sotw', 'CDS');

  // The client: the set it accepted last, its version, and its current interest.
  let held = new Map<string, string>();
  let heldVersion = '';
  let names = first;
  let everNamed = first.length > 0;
  let wildcard = first.length === 0 || first.includes('*');
  let read = 0;
  let unanswered: { nonce: string; version: string; set: Map<string, string> } | undefined;
  let oldNonce = 'never-sent';

  const readNew = () => {
    for (; read < written.length; read++) {
      const r = decodeResponse('v3', 'DiscoveryResponse', written[read]!);
      assert.equal(unanswered, undefined, 'a second response before the first was answered');
      const set = new Map<string, string>();
      for (const a of r.resources) {
        const c = decodeAny(a);
        assert.ok(!set.has(c.name), 'a name twice in one response');
        assert.ok(wildcard || names.includes(c.name), `sent ${c.name} outside the subscription`);
        set.set(c.name, Buffer.from(a.value).toString('base64'));
      }
      unanswered = { nonce: r.nonce, version: r.versionInfo, set };
    }
  };
  const answer = (nack: boolean) => {
    if (!unanswered) return;
    oldNonce = unanswered.nonce;
    if (!nack) {
      held = unanswered.set;
      heldVersion = unanswered.version;
    }
    send({
      typeUrl: CDS,
      versionInfo: heldVersion,
      responseNonce: unanswered.nonce,
      resourceNames: names,
      ...(nack ? { errorDetail: { code: 3, message: 'no' } } : {}),
    });
    unanswered = undefined;
  };

  send({ node: { id: 'n' }, typeUrl: CDS, resourceNames: first });
  readNew();
  for (const o of ops) {
    if (o.op === 'put') put(cluster(o.name, o.content));
    else if (o.op === 'remove') remove(CDS, o.name);
    else if (o.op === 'request') {
      wildcard = (o.names.length === 0 && !everNamed) || o.names.includes('*');
      everNamed ||= o.names.length > 0;
      names = o.names;
      send({ typeUrl: CDS, versionInfo: heldVersion, resourceNames: names });
    } else if (o.op === 'stale') {
      send({ typeUrl: CDS, versionInfo: heldVersion, responseNonce: oldNonce, resourceNames: names });
    } else answer(o.op === 'nack');
    readNew();
    assert.ok(stream.stats.maxUnackedPerType <= 1);
  }
  // Every name gets new content, deleted ones too: a NACKed set (even a NACKed deletion) is only resent
  // once its content changes (X-ACK-5), so convergence is checked after a change to everything.
  for (const n of NAMES) p.set(cluster(n, 9));
  changed(CDS, NAMES);
  readNew();
  for (let i = 0; unanswered && i < 20; i++) {
    answer(false);
    readNew();
  }
  const set = p.get(CDS, stream.node!);
  const expected = [...set.byName.keys()].filter((n) => (wildcard && set.wildcard.has(n)) || names.includes(n)).sort();
  // What the client wants is what it sees; names it no longer asks for are its own to drop (X-SUB-4).
  const wanted = [...held.keys()].filter((n) => wildcard || names.includes(n)).sort();
  assert.deepEqual(wanted, expected);
  for (const n of expected) assert.equal(held.get(n), Buffer.from(set.byName.get(n)!.encoded).toString('base64'));
}

test('SotW model: bounded in flight, only subscribed names, converges to the subscription', () => {
  fc.assert(
    fc.property(fc.constantFrom([], ['*'], ['a'], ['a', 'c']), fc.array(opArb, { maxLength: 30 }), (first, ops) =>
      run([...first], ops),
    ),
    { numRuns: 300 },
  );
});
