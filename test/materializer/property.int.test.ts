// The materializer's central property, over the real catalog, log and publisher:
// for random command sequences, with restores (the publisher resets every
// subscriber), ABORTED and dropped streams injected into the source, every view
// result equals the state machine's answer at the result's index, and no result
// ever changes after it was handed out.
import { test } from 'node:test';
import fc from 'fast-check';
import { check, faults, steps } from './property-harness';

test('views equal the state machine at every index, through resets, ABORTED and dropped streams', async () => {
  await fc.assert(fc.asyncProperty(steps, faults, fc.constantFrom(0, 60_000), check), { numRuns: 60 });
});
