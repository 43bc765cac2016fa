// One step per class of streams (src/xds/transport/step-memo.ts): streams in
// the same rule state share the rules' result. Held to the rules themselves:
// the same random script run on a server that shares steps and on one that
// does not must write the same responses (but for nonces) and leave every
// stream in an equal state; a class takes each step once; a delivery's
// response carries one nonce for the class and never one a stream had; and a
// step is never shared between streams served different resources.
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import fc from 'fast-check';
import type { ResourceChange, ResourceProvider, ResourceSet, XdsNode } from '../../../src/xds/transport/provider';
import type { XdsServer } from '../../../src/xds/transport/server';
import type { TypeState } from '../../../src/xds/transport/stream-state';
import { TypeUrl } from '../../../src/xds/transport/type-urls';
import { decodeResponse, encodeRequest, serializeResponse, type XdsResponse } from '../../../src/xds/transport/wire';
import { cla, cluster, TestProvider } from './helpers/fixtures';
import { inProcessXds } from './helpers/in-process';

const CDS = TypeUrl.Cluster;
const EDS = TypeUrl.ClusterLoadAssignment;
const NAMES = ['c1', 'c2', 'c3'];

interface Got {
  typeUrl: string;
  nonce: string;
  /** What the response carries, in a form equal on both servers: version_info, name@version, removed names. */
  content: string;
}

/** A client over a fake call: what it was sent, per type the latest unanswered nonce, and its requests. */
class Client extends EventEmitter {
  writableEnded = false;
  metadata = { get: () => [] };
  readonly got: Got[] = [];
  readonly unanswered = new Map<string, string>();
  constructor(readonly variant: 'delta' | 'sotw') {
    super();
  }
  write(m: XdsResponse, written?: () => void): boolean {
    const bytes = serializeResponse(m);
    const r = decodeResponse('v3', this.variant === 'delta' ? 'DeltaDiscoveryResponse' : 'DiscoveryResponse', bytes);
    const items =
      this.variant === 'delta'
        ? r.resources.map((x: { name: string; version: string }) => `${x.name}@${x.version}`)
        : r.resources.map((x: { value: Uint8Array }) => Buffer.from(x.value).toString('base64').slice(-12));
    const content = `${r.versionInfo ?? ''}|${items.sort().join(',')}|${(r.removedResources ?? []).sort().join(',')}`;
    this.got.push({ typeUrl: r.typeUrl, nonce: r.nonce, content });
    this.unanswered.set(r.typeUrl, r.nonce);
    written?.();
    return true;
  }
  end(): void {}
  getPeer(): string {
    return 'fake';
  }
  /** names: for SotW the whole interest, for Delta what to subscribe. */
  request(
    typeUrl: string,
    o: { names?: string[]; unsubscribe?: string[]; nonce?: string; nack?: boolean; node?: object },
  ) {
    const nonce = o.nonce ?? '';
    const error = o.nack ? { code: 3, message: 'rejected' } : undefined;
    const plain =
      this.variant === 'delta'
        ? {
            node: o.node,
            typeUrl,
            resourceNamesSubscribe: o.names ?? [],
            resourceNamesUnsubscribe: o.unsubscribe ?? [],
            responseNonce: nonce,
            errorDetail: error,
          }
        : { node: o.node, typeUrl, resourceNames: o.names ?? [], responseNonce: nonce, errorDetail: error };
    this.emit(
      'data',
      encodeRequest('v3', this.variant === 'delta' ? 'DeltaDiscoveryRequest' : 'DiscoveryRequest', plain),
    );
  }
  /** Answers the type's latest response (SotW restates its names). */
  answer(typeUrl: string, how: 'ack' | 'nack' | 'stale', names?: string[]): void {
    const nonce = this.unanswered.get(typeUrl);
    if (nonce === undefined) return;
    if (how !== 'stale') this.unanswered.delete(typeUrl);
    this.request(typeUrl, { nonce: how === 'stale' ? 'stale-0' : nonce, nack: how === 'nack', names });
  }
}

function server(provider: ResourceProvider, shareSteps: boolean): { xds: XdsServer; open(c: Client): void } {
  const { xds, deltaAds, sotwAds } = inProcessXds({
    provider,
    shareSteps,
    syncGate: { largeBytes: Number.MAX_SAFE_INTEGER },
  });
  return { xds, open: (c) => (c.variant === 'delta' ? deltaAds : sotwAds)(c as never) };
}

/** A stream's state as content (no identities, no nonces): what the two servers must agree on. */
function content(types: ReadonlyMap<string, TypeState>): unknown {
  const names = (s: ReadonlySet<string> | 'all') => (s === 'all' ? 'all' : [...s].sort());
  return [...types].map(([url, st]) => ({
    url,
    sub: { wildcard: st.sub.wildcard, names: names(st.sub.names), everNamed: st.sub.everNamed },
    started: st.started,
    answered: st.answered,
    acked: [...st.acked].sort(),
    ackedVersion: st.ackedVersion,
    lastSentVersion: st.lastSentVersion,
    rejected: [...st.rejected].sort(),
    pending: st.pending && { version: st.pending.version, sent: [...st.pending.sent].sort() },
    dirty: st.dirty,
    holding: st.holding,
    changed: names(st.changed),
    force: names(st.force),
    forceAll: st.forceAll,
    lastNack: st.lastNack && { code: st.lastNack.code, message: st.lastNack.message },
    changeAt: st.changeAt,
    unacked: st.unacked,
  }));
}

type Op =
  | { op: 'put'; type: 0 | 1; name: string; v: number }
  | { op: 'scoped'; type: 0 | 1; name: string; v: number; scope: string }
  | { op: 'remove'; type: 0 | 1; name: string }
  | { op: 'answer'; stream: number; type: 0 | 1; how: 'ack' | 'nack' | 'stale' }
  | { op: 'answerAll'; type: 0 | 1 }
  | { op: 'sub'; stream: number; names: string[] }
  | { op: 'unsub'; stream: number; names: string[] }
  | { op: 'tick'; ms: number };

const STREAMS = 5; // 0–3 Delta (a class from the start; 0–1 in cluster web, 2–3 in api), 4 SotW (web)
const clusterOf = (i: number) => (i === 2 || i === 3 ? 'api' : 'web');
const type = fc.constantFrom(0 as const, 1 as const);
const stream = fc.integer({ min: 0, max: STREAMS - 1 });
const names = fc.subarray(NAMES, { minLength: 1 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('put' as const),
      type,
      name: fc.constantFrom(...NAMES),
      v: fc.integer({ min: 1, max: 4 }),
    }),
  },
  fc.record({ op: fc.constant('remove' as const), type, name: fc.constantFrom(...NAMES) }),
  fc.record({
    op: fc.constant('scoped' as const),
    type,
    name: fc.constantFrom(...NAMES),
    v: fc.integer({ min: 1, max: 4 }),
    scope: fc.constantFrom('web', 'api'),
  }),
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('answer' as const),
      stream,
      type,
      how: fc.constantFrom('ack' as const, 'ack' as const, 'nack' as const, 'stale' as const),
    }),
  },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('answerAll' as const), type }) },
  fc.record({ op: fc.constant('sub' as const), stream, names }),
  fc.record({ op: fc.constant('unsub' as const), stream, names }),
  fc.record({ op: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: 120 }) }),
);

/** The script on one server: the clients' view, step by step, and the streams' final states. */
function play(provider: TestProvider, shareSteps: boolean) {
  const s = server(provider, shareSteps);
  const clients = Array.from({ length: STREAMS }, (_, i) => new Client(i < STREAMS - 1 ? 'delta' : 'sotw'));
  const eds = clients.map(() => new Set(['c1', 'c2']));
  const start = () => {
    clients.forEach((c, i) => {
      s.open(c);
      c.request(CDS, { names: c.variant === 'delta' ? ['*'] : [], node: { id: `n${i}`, cluster: clusterOf(i) } });
      c.answer(CDS, 'ack', c.variant === 'sotw' ? [] : undefined);
      c.request(EDS, { names: [...eds[i]!] });
      c.answer(EDS, 'ack', c.variant === 'sotw' ? [...eds[i]!] : undefined);
    });
  };
  const apply = (o: Op) => {
    const url =
      o.op === 'put' || o.op === 'remove' || o.op === 'answer' || o.op === 'answerAll' ? [CDS, EDS][o.type]! : '';
    const sotwNames = (i: number, u: string) => (u === CDS ? [] : [...eds[i]!]);
    if (o.op === 'answer') clients[o.stream]!.answer(url, o.how, sotwNames(o.stream, url));
    else if (o.op === 'answerAll') clients.forEach((c, i) => c.answer(url, 'ack', sotwNames(i, url)));
    else if (o.op === 'sub' || o.op === 'unsub') {
      const c = clients[o.stream]!;
      for (const n of o.names) o.op === 'sub' ? eds[o.stream]!.add(n) : eds[o.stream]!.delete(n);
      if (c.variant === 'sotw') c.request(EDS, { names: [...eds[o.stream]!], nonce: c.unanswered.get(EDS) ?? '' });
      else c.request(EDS, o.op === 'sub' ? { names: o.names } : { unsubscribe: o.names });
    }
  };
  return { s, clients, start, apply, sotwNames: (i: number, u: string) => (u === CDS ? [] : [...eds[i]!]) };
}

test('a server that shares steps writes what one that does not writes, and leaves every stream in an equal state (fast-check)', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  fc.assert(
    fc.property(fc.array(opArb, { maxLength: 40 }), (ops) => {
      const provider = new TestProvider();
      provider.set(...NAMES.map((n) => cluster(n)), ...NAMES.map((n) => cla(n)));
      const a = play(provider, true);
      const b = play(provider, false);
      try {
        a.start();
        b.start();
        const resource = (o: { type: 0 | 1; name: string; v: number }) =>
          o.type === 0 ? cluster(o.name, o.v) : cla(o.name, [8000 + o.v]);
        for (const o of ops) {
          // One provider feeds both servers: a change reaches both pipelines at once.
          if (o.op === 'put') provider.set(resource(o));
          else if (o.op === 'scoped') provider.setScoped(o.scope, resource(o));
          else if (o.op === 'remove') provider.remove([CDS, EDS][o.type]!, o.name);
          else if (o.op === 'tick') t.mock.timers.tick(o.ms);
          else {
            a.apply(o);
            b.apply(o);
          }
          // Step by step, not only in the end: what a stream was sent so far (a step replayed under
          // another window or batch would send the same later, or not at all).
          const sent = (p: typeof a) => p.clients.map((c) => c.got.map((g) => `${g.typeUrl}|${g.content}`).join(' '));
          assert.deepEqual(sent(a), sent(b), `after ${JSON.stringify(o)}`);
        }
        assert.equal(a.s.xds.stepStats().held, 0, 'no response step is held between deliveries');
        // Settle: every response answered, every window over.
        for (let round = 0; round < 20; round++) {
          t.mock.timers.tick(1100);
          for (const p of [a, b])
            p.clients.forEach((c, i) => {
              for (const url of [CDS, EDS]) c.answer(url, 'ack', p.sotwNames(i, url));
            });
        }
        for (let i = 0; i < STREAMS; i++) {
          const seen = (p: typeof a) => p.clients[i]!.got.map((g) => `${g.typeUrl}|${g.content}`);
          assert.deepEqual(seen(a), seen(b), `stream ${i}: the same responses`);
          assert.deepEqual(
            content(a.s.xds.streams()[i]!.types),
            content(b.s.xds.streams()[i]!.types),
            `stream ${i}: the same state`,
          );
        }
      } finally {
        a.s.xds.close();
        b.s.xds.close();
      }
    }),
    { numRuns: Number(process.env['FUZZ_RUNS'] ?? 150) },
  );
});

test('a class of streams takes each step once: one rule run per delivery and per ACK, the rest from memory; one nonce per delivery', () => {
  const provider = new TestProvider();
  provider.set(...NAMES.map((n) => cluster(n)), ...NAMES.map((n) => cla(n)));
  const { s, clients } = synced(provider, Array<string>(40).fill('web'));
  try {
    const before = s.xds.stepStats();
    const nonces: string[] = [];
    for (let round = 1; round <= 5; round++) {
      provider.set(cla(NAMES[round % 3]!, [9000 + round]));
      s.xds.flushChanges();
      const last = clients.map((c) => c.got.at(-1)!);
      assert.ok(
        last.every((g) => g.typeUrl === EDS && g.content.includes(NAMES[round % 3]!)),
        'every stream got the change',
      );
      assert.equal(new Set(last.map((g) => g.nonce)).size, 1, 'one nonce for the class in a delivery');
      nonces.push(last[0]!.nonce);
      for (const c of clients) c.answer(EDS, 'ack');
    }
    assert.equal(new Set(nonces).size, nonces.length, 'a new nonce every delivery');
    for (const c of clients)
      assert.equal(new Set(c.got.map((g) => g.nonce)).size, c.got.length, 'never a nonce twice on a stream');
    const after = s.xds.stepStats();
    const steps = after.hits + after.misses - before.hits - before.misses;
    // Per delivery and stream: the change, the response, the settled flush; per ACK one step.
    assert.ok(
      after.misses - before.misses <= 5 * 4,
      `computed ${after.misses - before.misses} steps of ${steps} for a class of 40`,
    );
    assert.ok(after.hits - before.hits >= 5 * 3 * 39, `took ${after.hits - before.hits} steps from memory`);
    const types = new Set(s.xds.streams().map((st) => st.types));
    assert.equal(types.size, 1, 'the class holds one state value');
    assert.equal(after.held, 0, 'no response step is held between deliveries');
  } finally {
    s.xds.close();
  }
});

test('streams in one state but served different resources never share a step', () => {
  // Two views of EDS: nodes of cluster "a" and "b" see c1 alike until b's moves.
  const sets = new Map<string, ResourceSet>();
  const listeners = new Set<(c: readonly ResourceChange[]) => void>();
  const put = (view: string, port: number) =>
    sets.set(view, { byName: new Map([['c1', cla('c1', [port])]]), wildcard: new Set(['c1']) });
  put('a', 8080);
  put('b', 8080);
  const cds: ResourceSet = { byName: new Map([['c1', cluster('c1')]]), wildcard: new Set(['c1']) };
  const provider: ResourceProvider = {
    get: (url: string, node: XdsNode) => (url === CDS ? cds : sets.get(node.cluster)!),
    onChange(l) {
      listeners.add(l);
      return () => listeners.delete(l);
    },
  };
  const { s, clients } = synced(provider, ['a', 'a', 'b', 'b'], ['c1']);
  try {
    assert.equal(new Set(s.xds.streams().map((st) => st.types)).size, 1, 'all four hold one state value');
    const counts = clients.map((c) => c.got.length);
    put('b', 9090);
    for (const l of listeners) l([{ typeUrl: EDS, names: new Set(['c1']) }]);
    s.xds.flushChanges();
    assert.deepEqual(
      clients.map((c, i) => c.got.length - counts[i]!),
      [0, 0, 1, 1],
      "b's streams get b's change; a's, which hold what they are served, get nothing",
    );
    assert.ok(clients[2]!.got.at(-1)!.content.includes('c1@'), "b's response carries c1");
  } finally {
    s.xds.close();
  }
});

test('a stream that NACKs leaves its class; the class shares on, the NACKed content is not sent again (X-ACK-5)', () => {
  const provider = new TestProvider();
  provider.set(cluster('c1'), cla('c1'));
  const { s, clients } = synced(provider, Array<string>(10).fill('web'), ['c1']);
  try {
    provider.set(cla('c1', [9001]));
    s.xds.flushChanges();
    clients.forEach((c, i) => c.answer(EDS, i === 0 ? 'nack' : 'ack'));
    const states = s.xds.streams().map((st) => st.types);
    assert.notEqual(states[0], states[1], 'the NACKing stream holds a state of its own');
    assert.equal(new Set(states.slice(1)).size, 1, 'the others still share one');
    const sent = clients[0]!.got.length;
    s.xds.flushChanges();
    assert.equal(clients[0]!.got.length, sent, 'the rejected version is not sent again');
    provider.set(cla('c1', [9002]));
    s.xds.flushChanges();
    assert.ok(
      clients[0]!.got.length === sent + 1 && clients[0]!.got.at(-1)!.content.includes('c1@'),
      'a new version goes',
    );
  } finally {
    s.xds.close();
  }
});

/** Delta streams, one per cluster given (CDS wildcard, EDS `names`), synced and ACKed: one class per view. */
function synced(
  provider: ResourceProvider,
  clusters: string[],
  names = NAMES,
): { s: ReturnType<typeof server>; clients: Client[] } {
  const s = server(provider, true);
  const clients = clusters.map(() => new Client('delta'));
  clients.forEach((c, i) => {
    s.open(c);
    c.request(CDS, { names: ['*'], node: { id: `n${i}`, cluster: clusters[i] } });
    c.answer(CDS, 'ack');
    c.request(EDS, { names });
    c.answer(EDS, 'ack');
  });
  s.xds.flushChanges();
  for (const c of clients) for (const url of [CDS, EDS]) c.answer(url, 'ack');
  return { s, clients };
}

test('an ACK step is taken only with the nonce it answered: a stale nonce from a class member changes nothing (X-ACK-6)', () => {
  const provider = new TestProvider();
  provider.set(...NAMES.map((n) => cluster(n)), ...NAMES.map((n) => cla(n)));
  const { s, clients } = synced(provider, ['web', 'web', 'web']);
  try {
    provider.set(cla('c1', [9001]));
    s.xds.flushChanges();
    clients[0]!.answer(EDS, 'ack');
    clients[1]!.answer(EDS, 'stale');
    const [a, b] = s.xds.streams().map((st) => st.types.get(EDS)!);
    assert.equal(a!.pending, undefined, 'the ACK settled the first');
    assert.ok(b!.pending, 'the stale nonce settled nothing on the second');
    const sent = clients[1]!.got.length;
    provider.set(cla('c1', [9002]));
    s.xds.flushChanges();
    assert.equal(clients[1]!.got.length, sent, 'no second response while the first is un-ACKed');
    clients[1]!.answer(EDS, 'ack');
    s.xds.flushChanges(); // the ACK came inside the push window: the latest goes with the next delivery
    assert.equal(clients[1]!.got.length, sent + 1, 'the latest goes once it is answered');
  } finally {
    s.xds.close();
  }
});

/** Under mocked timers and clock: a provider of NAMES' clusters and assignments, and a synced class in `clusters`. */
function mockedClass(
  t: { mock: { timers: { enable(o: { apis: ('setTimeout' | 'Date')[] }): void } } },
  clusters: string[],
) {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  const provider = new TestProvider();
  provider.set(...NAMES.map((n) => cluster(n)), ...NAMES.map((n) => cla(n)));
  return { provider, ...synced(provider, clusters) };
}

test("a delivery's change step is taken only for the same batch: two scoped batches in one delivery reach their own scopes", (t) => {
  const { provider, s, clients } = mockedClass(t, ['web', 'web', 'api', 'api']);
  try {
    assert.equal(new Set(s.xds.streams().map((st) => st.types)).size, 1, 'one class across both scopes');
    provider.set(cla('c3', [7000])); // a delivery: the window opens
    for (const c of clients) c.answer(EDS, 'ack');
    const counts = clients.map((c) => c.got.length);
    provider.setScoped('web', cla('c1', [9001]));
    provider.setScoped('api', cla('c2', [9002]));
    t.mock.timers.tick(1000); // both batches go in one delivery
    const last = clients.map((c, i) => (c.got.length > counts[i]! ? c.got.at(-1)!.content : 'nothing'));
    assert.ok(last[0]!.includes('c1@') && !last[0]!.includes('c2@'), `web gets c1: ${last[0]}`);
    assert.ok(last[2]!.includes('c2@') && !last[2]!.includes('c1@'), `api gets c2: ${last[2]}`);
  } finally {
    s.xds.close();
  }
});

test('an ACK step is taken only under the same push window: an ACK after the window sends the queued change at once (X-STREAM-4)', (t) => {
  const { provider, s, clients } = mockedClass(t, ['web', 'web']);
  try {
    t.mock.timers.tick(1000);
    provider.set(cla('c1', [9001])); // goes at once; the window opens
    t.mock.timers.tick(60);
    provider.set(cla('c2', [9002])); // goes at once too: both streams have c1 in flight, so c2 is queued on both
    clients[0]!.answer(EDS, 'ack'); // inside the new window: c2 waits for the next delivery
    const first = clients[0]!.got.length;
    t.mock.timers.tick(60); // that delivery: stream 0 gets c2
    assert.equal(clients[0]!.got.length, first + 1, 'deferred to the delivery, then sent');
    t.mock.timers.tick(100); // its window is over too
    const second = clients[1]!.got.length;
    clients[1]!.answer(EDS, 'ack'); // after the window: no delivery to wait for
    assert.equal(clients[1]!.got.length, second + 1, 'c2 goes with the ACK');
    assert.ok(clients[1]!.got.at(-1)!.content.includes('c2@'));
  } finally {
    s.xds.close();
  }
});
