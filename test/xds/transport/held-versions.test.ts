// HeldVersions against a plain Map (fast-check): any sequence of updates, from
// any shared base, reads as the Map does; every earlier value stays as it was;
// and the layers a lookup reads stay logarithmic.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { HeldVersions } from '../../../src/xds/transport/held-versions';

const name = fc.integer({ min: 0, max: 150 }).map((i) => `n${i}`);
const version: fc.Arbitrary<string | null> = fc.option(fc.constantFrom('1', '2', '3'), { nil: null, freq: 4 });
const update = fc.array(fc.tuple(name, version), { maxLength: 80, size: 'max' });

function assertSame(h: HeldVersions, model: ReadonlyMap<string, string>, names: readonly string[]): void {
  assert.deepEqual(new Map(h), model);
  assert.deepEqual([...h.keys()].sort(), [...model.keys()].sort());
  assert.equal(h.size, model.size);
  assert.equal(h.empty, model.size === 0);
  for (const n of names) {
    assert.equal(h.get(n), model.get(n));
    assert.equal(h.has(n), model.has(n));
  }
}

test('HeldVersions: random updates from a shared base read exactly as a plain Map; earlier values never change; lookups read O(log n) layers', () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(name, version), { maxLength: 200, size: 'max' }),
      fc.array(update, { minLength: 1, maxLength: 60, size: 'max' }),
      (baseEntries, updates) => {
        const base = new Map(baseEntries);
        const baseCopy = new Map(base);
        let h = HeldVersions.of(base);
        let model = new Map([...base].filter((e): e is [string, string] => e[1] !== null));
        const names = [...new Set([...baseEntries.map(([n]) => n), ...updates.flat().map(([n]) => n), 'absent'])];
        const history: [HeldVersions, Map<string, string>][] = [[h, model]];
        const given: [Map<string, string | null>, Map<string, string | null>][] = [];
        for (const [i, changes] of updates.entries()) {
          if (i % 2 === 1) {
            // A Map is taken as a layer as it is (a response's shared `sent` map): it must stay unwritten too.
            const layer = new Map(changes);
            given.push([layer, new Map(layer)]);
            h = h.with(layer);
          } else h = h.with(changes);
          model = new Map(model);
          for (const [n, v] of changes) {
            if (v === null) model.delete(n);
            else model.set(n, v);
          }
          history.push([h, model]);
          assertSame(h, model, names);
          assert.ok(
            h.depth <= Math.log2(names.length + base.size + 1) + 3,
            `${h.depth} layers for ${names.length} names`,
          );
        }
        for (const [old, m] of history)
          assert.deepEqual(new Map(old), m, 'a value never changes: updates make a new one');
        assert.deepEqual(base, baseCopy, 'the shared base is never written');
        for (const [layer, copy] of given) assert.deepEqual(layer, copy, 'a Map given as a layer is never written');
      },
    ),
    { numRuns: 100 },
  );
});

test('HeldVersions: many single-name updates (churn ACKs) keep the layers few', () => {
  let h = HeldVersions.of(new Map(Array.from({ length: 1000 }, (_, i): [string, string] => [`n${i}`, '0'])));
  for (let i = 0; i < 5000; i++) h = h.with([[`n${(i * 7) % 1000}`, String(i)]]);
  assert.ok(h.depth <= 12, `${h.depth} layers`);
  assert.equal(h.get('n7'), String(4001));
  assert.equal(h.size, 1000);
});

test('HeldVersions: streams that ACK the same shared maps in any interleaving share values and read as their own Maps', () => {
  fc.assert(
    fc.property(
      fc.array(update, { minLength: 1, maxLength: 8 }),
      // Per step: which of 3 streams ACKs which of the responses (a stream may skip some, or take one twice).
      fc.array(fc.tuple(fc.integer({ min: 0, max: 2 }), fc.nat()), { maxLength: 40 }),
      (responses, steps) => {
        const base = new Map([['a', '0']]);
        const layers = responses.map((r) => new Map(r));
        const streams = [0, 1, 2].map(() => ({ h: HeldVersions.of(base), model: new Map(base) }));
        assert.equal(HeldVersions.of(base), streams[0]!.h, 'one value per shared base');
        for (const [who, k] of steps) {
          const s = streams[who]!;
          const layer = layers[k % layers.length]!;
          s.h = s.h.with(layer);
          s.model = new Map(s.model);
          for (const [n, v] of layer) {
            if (v === null) s.model.delete(n);
            else s.model.set(n, v);
          }
          assert.deepEqual(new Map(s.h), s.model);
        }
      },
    ),
    { numRuns: 200 },
  );
  // The fleet case: every stream ACKs the same responses in the same order, and holds the very same value.
  const base = new Map([['a', '0']]);
  const pushes = Array.from({ length: 20 }, (_, i) => new Map([[`n${i % 5}`, String(i)]]));
  const fleet = Array.from({ length: 100 }, () => pushes.reduce((h, p) => h.with(p), HeldVersions.of(base)));
  assert.ok(
    fleet.every((h) => h === fleet[0]),
    'one value per step for the fleet',
  );
});
