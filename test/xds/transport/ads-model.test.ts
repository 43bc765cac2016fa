// Property test for an Envoy-like client on Delta ADS: wildcard CDS and LDS,
// EDS for the clusters it holds, RDS for fixed route names. Random changes to
// all four types, ACKs and NACKs in any order. Checks after every step: at
// most one un-ACKed response per type, LDS/RDS never sent while CDS/EDS are
// un-ACKed. At the end (everything changed once more, every response
// answered) nothing is stuck: each type holds exactly what it asks for.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { TypeUrl } from '../../../src/xds/transport/type-urls';
import { decodeResponse } from '../../../src/xds/transport/wire';
import { recordingCall, startFakeStream } from './helpers/fake-stream';
import { cla, cluster, listener, route, TestProvider } from './helpers/fixtures';

const { Cluster: CDS, ClusterLoadAssignment: EDS, Listener: LDS, RouteConfiguration: RDS } = TypeUrl;
const CLUSTERS = ['c1', 'c2', 'c3'];
const ROUTES = ['r1', 'r2'];

type Op =
  | { op: 'cluster'; name: string; v: number }
  | { op: 'dropCluster'; name: string }
  | { op: 'cla'; name: string; v: number }
  | { op: 'route'; name: string; to: string }
  | { op: 'listener'; route: string }
  | { op: 'answer'; type: number; nack: boolean };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    op: fc.constant('cluster' as const),
    name: fc.constantFrom(...CLUSTERS),
    v: fc.integer({ min: 1, max: 3 }),
  }),
  fc.record({ op: fc.constant('dropCluster' as const), name: fc.constantFrom(...CLUSTERS) }),
  fc.record({ op: fc.constant('cla' as const), name: fc.constantFrom(...CLUSTERS), v: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ op: fc.constant('route' as const), name: fc.constantFrom(...ROUTES), to: fc.constantFrom(...CLUSTERS) }),
  fc.record({ op: fc.constant('listener' as const), route: fc.constantFrom(...ROUTES) }),
  fc.record({ op: fc.constant('answer' as const), type: fc.integer({ min: 0, max: 3 }), nack: fc.boolean() }),
);

function run(ops: Op[]): void {
  const p = new TestProvider();
  p.set(cluster('c1'), cla('c1'), listener('l1', 'r1'), route('r1', 'c1'));
  const { call, written } = recordingCall();
  const { stream, send, changed, put, remove } = startFakeStream(call, p, 'delta', 'ads');
  const TYPES = [CDS, EDS, LDS, RDS];
  const held = new Map<string, Map<string, string>>(TYPES.map((t) => [t, new Map()]));
  const unanswered = new Map<string, { nonce: string; before: Map<string, string> }>();
  const edsNames = new Set<string>();
  let read = 0;

  const readNew = () => {
    for (; read < written.length; read++) {
      const r = decodeResponse('v3', 'DeltaDiscoveryResponse', written[read]!);
      const t = r.typeUrl as string;
      assert.ok(!unanswered.has(t), `a second ${t} response before the first was answered`);
      if (t === LDS || t === RDS)
        assert.ok(!unanswered.has(CDS) && !unanswered.has(EDS), 'LDS/RDS sent while CDS/EDS un-ACKed');
      const h = held.get(t)!;
      unanswered.set(t, { nonce: r.nonce, before: new Map(h) });
      for (const x of r.resources as { name: string; version: string }[]) h.set(x.name, x.version);
      for (const n of r.removedResources as string[]) h.delete(n);
      if (t === CDS) {
        // Envoy: EDS follows the clusters it holds.
        const want = new Set(h.keys());
        const sub = [...want].filter((n) => !edsNames.has(n));
        const unsub = [...edsNames].filter((n) => !want.has(n));
        if (sub.length || unsub.length) {
          for (const n of sub) edsNames.add(n);
          for (const n of unsub) {
            edsNames.delete(n);
            held.get(EDS)!.delete(n);
            unanswered.get(EDS)?.before.delete(n);
          }
          send({ typeUrl: EDS, resourceNamesSubscribe: sub, resourceNamesUnsubscribe: unsub });
        }
      }
    }
  };
  const answer = (t: string, nack: boolean) => {
    const u = unanswered.get(t);
    if (!u) return;
    unanswered.delete(t);
    if (nack) held.set(t, u.before);
    send({ typeUrl: t, responseNonce: u.nonce, ...(nack ? { errorDetail: { code: 3, message: 'no' } } : {}) });
  };

  send({ node: { id: 'envoy' }, typeUrl: CDS, resourceNamesSubscribe: ['*'] });
  send({ typeUrl: LDS, resourceNamesSubscribe: ['*'] });
  send({ typeUrl: RDS, resourceNamesSubscribe: ROUTES });
  readNew();
  for (const o of ops) {
    if (o.op === 'cluster') put(cluster(o.name, o.v));
    else if (o.op === 'dropCluster') {
      remove(CDS, o.name);
      remove(EDS, o.name);
    } else if (o.op === 'cla') put(cla(o.name, [8000 + o.v]));
    else if (o.op === 'route') put(route(o.name, o.to));
    else if (o.op === 'listener') put(listener('l1', o.route));
    else answer(TYPES[o.type]!, o.nack);
    readNew();
    assert.ok(stream.stats.maxUnackedPerType <= 1);
  }
  // Everything changes once more, to content no step above can make (so whatever was NACKed is
  // superseded: a rejected version is never resent unchanged, X-ACK-5), then the client ACKs until quiet.
  p.set(
    ...CLUSTERS.map((c) => cluster(c, 7)),
    ...CLUSTERS.map((c) => cla(c, [9000])),
    listener('l1', 'r2', 'last'),
    ...ROUTES.map((r) => route(r, 'c2', 'last')),
  );
  for (const t of TYPES) changed(t, [...CLUSTERS, ...ROUTES, 'l1']);
  readNew();
  for (let i = 0; unanswered.size > 0 && i < 50; i++) {
    for (const t of [...unanswered.keys()]) answer(t, false);
    readNew();
  }
  assert.equal(unanswered.size, 0, 'the exchange settles');
  const want = (t: string, names: Iterable<string>) => {
    const set = p.get(t, stream.node!);
    return new Map(
      [...names]
        .filter((n) => set.byName.has(n))
        .map((n) => [n, set.byName.get(n)!.version] as const)
        .sort(),
    );
  };
  assert.deepEqual(new Map([...held.get(CDS)!].sort()), want(CDS, CLUSTERS));
  assert.deepEqual(new Map([...held.get(EDS)!].sort()), want(EDS, edsNames));
  assert.deepEqual(new Map([...held.get(LDS)!].sort()), want(LDS, ['l1']));
  assert.deepEqual(new Map([...held.get(RDS)!].sort()), want(RDS, ROUTES));
}

test('ADS model: make-before-break holds never deadlock, and every type converges', () => {
  fc.assert(
    fc.property(fc.array(opArb, { maxLength: 30 }), (ops) => run(ops)),
    { numRuns: 200 },
  );
});
