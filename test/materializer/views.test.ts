// Views: filters, ordering, folding, reset, and the immutability of results.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { HubError } from '../../src/errors';
import { configEntriesView } from '../../src/materializer/views/config-entries';
import { compareInstances, healthView, instanceKey } from '../../src/materializer/views/health';
import { serviceListView } from '../../src/materializer/views/service-list';
import { changesBetween, sizeOf } from '../../src/materializer/views/sorted-sharded';
import { config, csn, health, isDeepFrozen, resolver, serviceName } from './fixtures';

const ids = (r: readonly { Node: { Node: string }; Service: { ID: string } }[]) =>
  r.map((c) => `${c.Node.Node}/${c.Service.ID}`);

describe('health view', () => {
  test('sorts by node then service ID, upserts and deletes', () => {
    const v = healthView({ service: 'web' });
    v.update([
      health(1, 'register', csn('web', 'b', 'n2')),
      health(1, 'register', csn('web', 'a', 'n2')),
      health(1, 'register', csn('web', 'z', 'n1')),
    ]);
    assert.deepEqual(ids(v.result(1n)), ['n1/z', 'n2/a', 'n2/b']);
    v.update([
      health(2, 'register', csn('web', 'a', 'n2', { port: 9 })),
      health(2, 'deregister', csn('web', 'z', 'n1')),
    ]);
    const r = v.result(2n);
    assert.deepEqual(ids(r), ['n2/a', 'n2/b']);
    assert.equal(r[0]!.Service.Port, 9);
  });

  test('tags are all required and compared case-insensitively; a register that stops matching deletes', () => {
    const v = healthView({ service: 'web', tags: ['Primary', 'v1'] });
    v.update([
      health(1, 'register', csn('web', 'a', 'n1', { tags: ['primary', 'V1', 'extra'] })),
      health(1, 'register', csn('web', 'b', 'n1', { tags: ['primary'] })),
    ]);
    assert.deepEqual(ids(v.result(1n)), ['n1/a']);
    v.update([health(2, 'register', csn('web', 'a', 'n1', { tags: ['v1'] }))]);
    assert.deepEqual(ids(v.result(2n)), [], 'stale member dropped (Consul #12640)');
  });

  test('passingOnly keeps instances whose checks all pass', () => {
    const v = healthView({ service: 'web', passingOnly: true });
    v.update([
      health(1, 'register', csn('web', 'a', 'n1')),
      health(1, 'register', csn('web', 'b', 'n1', { status: 'warning' })),
      health(1, 'register', csn('web', 'c', 'n1', { status: 'critical' })),
    ]);
    assert.deepEqual(ids(v.result(1n)), ['n1/a']);
    v.update([
      health(2, 'register', csn('web', 'a', 'n1', { status: 'critical' })),
      health(2, 'register', csn('web', 'b', 'n1')),
    ]);
    assert.deepEqual(ids(v.result(2n)), ['n1/b']);
  });

  test('a service of another name on the same subject (case differs) is not in the view', () => {
    const v = healthView({ service: 'web' });
    v.update([health(1, 'register', csn('Web', 'a', 'n1')), health(1, 'register', csn('web', 'b', 'n1'))]);
    assert.deepEqual(ids(v.result(1n)), ['n1/b']);
  });

  test('set then delete of one key inside one delivery leaves nothing', () => {
    const v = healthView({ service: 'web' });
    v.update([health(1, 'register', csn('web', 'a', 'n1')), health(1, 'deregister', csn('web', 'a', 'n1'))]);
    assert.deepEqual(v.result(1n), []);
  });

  test('results are deeply frozen, shared per index, and never change when the view moves on or resets', () => {
    const v = healthView({ service: 'web' });
    const input = csn('web', 'a', 'n1');
    v.update([health(1, 'register', input)]);
    const r1 = v.result(1n);
    assert.equal(v.result(1n), r1, 'one render per index');
    assert.ok(isDeepFrozen(r1));
    const copy = structuredClone(r1);
    v.update([health(2, 'register', csn('web', 'a', 'n1', { port: 1 })), health(2, 'register', csn('web', 'b', 'n1'))]);
    v.update([health(3, 'deregister', csn('web', 'a', 'n1'))]);
    v.reset();
    assert.deepEqual(r1, copy);
    assert.deepEqual(v.result(4n), []);
    assert.throws(() => (r1 as unknown as unknown[]).push(1), TypeError);
    assert.throws(() => {
      (r1[0]!.Service as { Port: number }).Port = 1;
    }, TypeError);
  });

  test('an event of another type is refused', () => {
    const v = healthView({ service: 'web' });
    assert.throws(
      () => v.update([serviceName(1, 'register', 'web')]),
      (e: unknown) => e instanceof HubError && e.code === 'INTERNAL',
    );
  });

  test('a 1,000-instance view folded one event at a time matches a fold of all at once', () => {
    const one = healthView({ service: 'web' });
    const all = healthView({ service: 'web' });
    const events = Array.from({ length: 1000 }, (_, i) =>
      health(i + 1, 'register', csn('web', `s${i % 7}`, `node-${i}`)),
    );
    for (const e of events) one.update([e]);
    all.update(events);
    assert.deepEqual(one.result(1000n), all.result(1000n));
    assert.equal(one.result(1000n).length, 1000);
  });
});

/** One delivery's events for `ops`, applied to `model` (instances by key) as the view should apply them. */
function eventsOf(
  model: Map<string, ReturnType<typeof csn>>,
  ops: readonly { node: string; id: string; port: number; register: boolean }[],
  index: number,
) {
  return ops.map((o) => {
    const c = csn('web', o.id, o.node, { port: o.port });
    if (o.register) model.set(instanceKey(c), c);
    else model.delete(instanceKey(c));
    return health(index, o.register ? 'register' : 'deregister', c);
  });
}

describe('sorted results patched in place of a re-sort', () => {
  test('for random deliveries read at random moments, the result equals a fresh sort of the model', () => {
    const op = fc.record({
      node: fc.constantFrom('a', 'b', 'c', 'd', 'e'),
      id: fc.constantFrom('s1', 's2', 's3'),
      port: fc.integer({ min: 1, max: 3 }),
      register: fc.boolean(),
    });
    const delivery = fc.record({ ops: fc.array(op, { minLength: 1, maxLength: 6 }), read: fc.boolean() });
    fc.assert(
      fc.property(fc.array(delivery, { maxLength: 60 }), (deliveries) => {
        const v = healthView({ service: 'web' });
        const model = new Map<string, ReturnType<typeof csn>>();
        const held: [ReturnType<typeof v.result>, string][] = [];
        deliveries.forEach((d, i) => {
          v.update(eventsOf(model, d.ops, i + 1));
          if (d.read) {
            const r = v.result(BigInt(i + 1));
            assert.deepEqual(r, [...model.values()].sort(compareInstances));
            held.push([r, JSON.stringify(r)]);
          }
        });
        assert.deepEqual(v.result(0n), [...model.values()].sort(compareInstances));
        for (const [r, json] of held) assert.equal(JSON.stringify(r), json);
      }),
      { numRuns: 300 },
    );
  });

  test('deferred results: built when read, in any order and after later changes, equal to the eager result of their version', () => {
    const op = fc.record({
      node: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g'),
      id: fc.constantFrom('s1', 's2', 's3'),
      port: fc.integer({ min: 1, max: 3 }),
      register: fc.boolean(),
    });
    // When to read a deferred result's value: at once, at the end (after later changes), or never.
    const delivery = fc.record({
      ops: fc.array(op, { minLength: 1, maxLength: 8 }),
      read: fc.constantFrom('now', 'later', 'never'),
    });
    fc.assert(
      fc.property(fc.array(delivery, { maxLength: 60 }), fc.boolean(), (deliveries, eagerToo) => {
        const lazy = healthView({ service: 'web' });
        const eager = healthView({ service: 'web' });
        const model = new Map<string, ReturnType<typeof csn>>();
        const taken: {
          r: ReturnType<NonNullable<typeof lazy.deferred>>;
          want: ReturnType<typeof csn>[];
          read: string;
        }[] = [];
        deliveries.forEach((d, i) => {
          const events = eventsOf(model, d.ops, i + 1);
          lazy.update(events);
          eager.update(events);
          const r = lazy.deferred!(BigInt(i + 1));
          assert.equal(lazy.deferred!(BigInt(i + 1)), r, 'one deferred result per version and index');
          const want = [...model.values()].sort(compareInstances);
          assert.equal(sizeOf(r), want.length, 'size known without the array');
          // The eager view reads every version, so its arrays are patched one delivery at a time.
          if (eagerToo) assert.deepEqual(ids(eager.result(BigInt(i + 1))), ids(want));
          const prev = taken.at(-1);
          if (prev) {
            // Asked of the deferred results themselves (no array built): exactly the instances one has and the other has not.
            const known = changesBetween(prev.r, r);
            assert.ok(known, 'consecutive results of one view know what changed');
            // By identity: a re-registered instance is a new object, so it is in both (as its old and its new object).
            const ours = new Set(want);
            const theirs = new Set(prev.want);
            assert.deepEqual(new Set(known.added), new Set(want.filter((c) => !theirs.has(c))), 'added');
            assert.deepEqual(new Set(known.removed), new Set(prev.want.filter((c) => !ours.has(c))), 'removed');
          }
          taken.push({ r, want, read: d.read });
          if (d.read === 'now') {
            assert.deepEqual(r.value, want);
            assert.equal(r.value, r.value, 'built once');
            assert.equal(lazy.result(BigInt(i + 1)), r.value, 'the same array as the eager result of the version');
          }
        });
        for (const t of taken) {
          if (t.read === 'never') continue;
          assert.deepEqual(t.r.value, t.want, 'a version read after later changes holds what it held');
          assert.ok(Object.isFrozen(t.r.value));
        }
        assert.deepEqual(lazy.result(0n), [...model.values()].sort(compareInstances));
      }),
      { numRuns: 300 },
    );
  });
});

describe('config entries view', () => {
  test('wildcard: every entry of the kind, sorted by name; deletes remove', () => {
    const v = configEntriesView({ kind: 'service-resolver' });
    v.update([config(1, 'upsert', resolver('web', 1)), config(1, 'upsert', resolver('api', 1))]);
    assert.deepEqual(
      v.result(1n).map((e) => e.Name),
      ['api', 'web'],
    );
    v.update([config(2, 'delete', resolver('api', 1))]);
    assert.deepEqual(
      v.result(2n).map((e) => e.Name),
      ['web'],
    );
    assert.ok(isDeepFrozen(v.result(2n)));
  });

  test('named: only that entry', () => {
    const v = configEntriesView({ kind: 'service-resolver', name: 'web' });
    v.update([
      config(1, 'upsert', resolver('web', 1, { DefaultSubset: 'v2' })),
      config(1, 'upsert', resolver('api', 1)),
    ]);
    assert.deepEqual(v.result(1n), [resolver('web', 1, { DefaultSubset: 'v2' })]);
  });
});

describe('service list view', () => {
  test('register adds a name, deregister removes it, sorted by name', () => {
    const v = serviceListView();
    v.update([serviceName(1, 'register', 'web'), serviceName(1, 'register', 'api'), serviceName(1, 'register', 'db')]);
    assert.deepEqual(
      v.result(1n).map((s) => s.Name),
      ['api', 'db', 'web'],
    );
    v.update([serviceName(2, 'deregister', 'db')]);
    assert.deepEqual(
      v.result(2n).map((s) => s.Name),
      ['api', 'web'],
    );
    v.reset();
    assert.deepEqual(v.result(0n), []);
  });
});
