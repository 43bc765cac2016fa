// The contract every View implementation keeps (src/materializer/view.ts),
// checked with fast-check over random deliveries, for any view given a
// generator of its events:
// - immutability: results are deeply frozen, and a result handed out never
//   changes afterwards, whatever is folded later;
// - a result is the same object until the next update or reset;
// - folding is independent of how events are cut into deliveries, and a reset
//   followed by the same snapshot gives the same result;
// - driven by the materializer: the index never goes back, a reader waiting at
//   the current index wakes on the next delivery (not before) with a result
//   whose index is past its own, and a reader behind is answered at once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { CatalogEvent } from '../../src/catalog/types';
import { createMaterializer } from '../../src/materializer/materializer';
import { inProcessSource } from '../../src/materializer/sources/in-process';
import type { View } from '../../src/materializer/view';
import type { SubscribeRequest } from '../../src/subscribe/types';
import { eos, isDeepFrozen, items, recordingBackoff } from './fixtures';
import { createScriptedPublisher } from './scripted-publisher';

export interface ViewContractSpec<T> {
  make(): View<T>;
  /** What the materializer subscribes to for this view. */
  request: SubscribeRequest;
  /** One event of this view's kind at `index` (the arbitrary picks which, and how). */
  event: fc.Arbitrary<(index: number) => CatalogEvent>;
}

/** Deliveries: each a list of events, at indexes 1, 2, 3, … */
const deliveries = <T>(spec: ViewContractSpec<T>) =>
  fc.array(fc.array(spec.event, { maxLength: 4 }), { minLength: 1, maxLength: 12 });

const at = (makers: ((index: number) => CatalogEvent)[], index: number) => makers.map((m) => m(index));

/** Results deeply frozen, never changed once handed out, the same object until the next update. */
export function checkImmutability<T>(spec: ViewContractSpec<T>, numRuns = 60): void {
  fc.assert(
    fc.property(deliveries(spec), (plan) => {
      const view = spec.make();
      const handedOut: { result: T; copy: string }[] = [];
      plan.forEach((makers, i) => {
        view.update(at(makers, i + 1));
        const r = view.result(BigInt(i + 1));
        assert.ok(isDeepFrozen(r), 'deeply frozen');
        assert.equal(view.result(BigInt(i + 1)), r, 'the same object until the next update');
        handedOut.push({ result: r, copy: JSON.stringify(r) });
      });
      view.reset();
      for (const h of handedOut) assert.equal(JSON.stringify(h.result), h.copy, 'a result handed out never changes');
    }),
    { numRuns },
  );
}

export function viewContract<T>(name: string, spec: ViewContractSpec<T>): void {
  test(`View contract (${name}): results are deeply frozen, never change once handed out, and stay the same object until the next update`, () => {
    checkImmutability(spec);
  });

  test(`View contract (${name}): folding does not depend on how events are cut into deliveries; reset then the same snapshot gives the same result`, () => {
    fc.assert(
      fc.property(deliveries(spec), (plan) => {
        const stepwise = spec.make();
        plan.forEach((makers, i) => stepwise.update(at(makers, i + 1)));
        const all = plan.flatMap((makers, i) => at(makers, i + 1));
        const once = spec.make();
        once.update(all);
        const last = BigInt(plan.length);
        assert.deepEqual(once.result(last), stepwise.result(last));
        stepwise.reset();
        const empty = spec.make();
        empty.update([]);
        assert.deepEqual(stepwise.result(0n), empty.result(0n), 'a reset forgets everything');
        stepwise.update(all);
        assert.deepEqual(stepwise.result(last), once.result(last));
      }),
      { numRuns: 60 },
    );
  });

  test(`View contract (${name}): under the materializer the index only grows, and readers wake when it passes theirs, not before`, async () => {
    await fc.assert(
      fc.asyncProperty(deliveries(spec), async (plan) => {
        const publisher = createScriptedPublisher();
        const m = createMaterializer({
          source: inProcessSource(publisher),
          request: spec.request,
          view: spec.make(),
          backoff: recordingBackoff(),
        });
        const controller = new AbortController();
        const running = m.run(controller.signal);
        try {
          const sub = await publisher.next();
          // Snapshot: the first delivery, then end of snapshot.
          sub.push(items(1, ...at(plan[0]!, 1)), eos(1));
          const first = await m.waitFor(0n);
          assert.equal(first.index, 1n);
          let seen = first.index;
          for (let i = 1; i < plan.length; i++) {
            const index = i + 1;
            let woke = false;
            const waiting = m.waitFor(seen).then((r) => {
              woke = true;
              return r;
            });
            await new Promise((r) => setImmediate(r));
            assert.equal(woke, false, 'a reader at the current index waits');
            const behind = await m.waitFor(seen - 1n);
            assert.equal(behind.index, seen, 'a reader behind is answered at once, with the current result');
            sub.push(items(index, ...at(plan[i]!, index)));
            const r = await waiting;
            assert.ok(r.index > seen, `woken with index ${r.index}, past ${seen}`);
            assert.ok(m.index() >= seen, 'the index never goes back');
            seen = r.index;
          }
          assert.equal(m.index(), BigInt(plan.length));
        } finally {
          controller.abort();
          await running.catch(() => undefined);
        }
      }),
      { numRuns: 25 },
    );
  });
}
