// StateMachine.fork(): a private copy that shares the immutable records. What
// either side applies afterwards, the other never sees, and the copy behaves
// exactly like a machine restored from a snapshot (what it replaces in the dry
// run: serialising the whole state per request).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { CatalogReader } from '../../src/catalog/catalog';
import type { Command } from '../../src/catalog/commands';
import { createStateMachine, type StateMachine } from '../../src/catalog/state';
import { commands, ENTRY_NAMES, KINDS, NODES, resolveCurrent, SERVICE_NAMES } from './arbitraries';

/** The state as its reads see it (the snapshot leaves out derived indexes such as service name → instances). */
function seen(r: CatalogReader): unknown {
  return {
    snapshot: (r as StateMachine).snapshot(),
    reads: [
      r.lastIndex(),
      r.nodes(),
      r.services(),
      r.serviceNames(),
      r.checksInState('any'),
      ...NODES.map((n) => r.node(n)),
      ...SERVICE_NAMES.map((s) => r.serviceInstances(s)),
      ...KINDS.flatMap((k) => [r.configEntries(k), ...ENTRY_NAMES.map((n) => r.configEntry(k, n))]),
    ],
  };
}

/** Applies cmds after lastIndex(), resolving CURRENT placeholders; returns what each apply answered. */
function applyAll(sm: StateMachine, cmds: readonly Command[]): unknown[] {
  return cmds.map((c) => sm.apply(sm.lastIndex() + 1n, resolveCurrent(sm, c)));
}

test('fork(): equal to restore(snapshot()) under any later commands, and independent of the original both ways', () => {
  fc.assert(
    fc.property(commands, commands, (prefix, suffix) => {
      const sm = createStateMachine();
      applyAll(sm, prefix);
      const atFork = seen(sm);
      const fork = sm.fork();
      const restored = createStateMachine();
      restored.restore(sm.snapshot());
      assert.deepEqual(seen(fork), atFork);

      assert.deepEqual(applyAll(fork, suffix), applyAll(restored, suffix));
      assert.deepEqual(seen(fork), seen(restored));
      assert.deepEqual(seen(sm), atFork, 'the original does not see what the fork applied');

      const forked = seen(fork);
      applyAll(sm, suffix.slice().reverse());
      assert.deepEqual(seen(fork), forked, 'the fork does not see what the original applied later');
    }),
    { numRuns: 100 },
  );
});
