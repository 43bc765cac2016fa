// A submit checks its command on the payload's own parse and applies that parse as
// its entry (src/catalog/store.ts, `checkedParses`): the entry must have exactly the
// effect a parse of the log's text has on every other catalog, and the caller's
// command must never be stored or changed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inspect, isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import pino from 'pino';
import type { ApplyResult, Command } from '../../src/catalog/commands';
import { MAX_OBJECT_BYTES } from '../../src/catalog/limits';
import { createStateMachine } from '../../src/catalog/state';
import { createCatalog } from '../../src/catalog/store';
import type { Log } from '../../src/log/log';
import { createMemoryLog } from '../../src/log/memory';
import { commands, resolveCurrent } from './arbitraries';
import { register, serviceInput } from './fixtures';

const logger = pino({ level: 'silent' });

/** Every entry of the log applied to a fresh state machine from its text: the results by index, and the state. */
async function replay(log: Log): Promise<{ results: Map<bigint, ApplyResult>; state: string }> {
  const sm = createStateMachine();
  const results = new Map<bigint, ApplyResult>();
  for (const entry of await log.read(1n))
    results.set(entry.index, sm.apply(entry.index, JSON.parse(entry.payload) as Command, true).result);
  return { results, state: sm.snapshot() };
}

test("entries applied from their submit's checked parse leave the state and results a parse of the log gives", async () => {
  await fc.assert(
    fc.asyncProperty(commands, fc.array(fc.boolean(), { minLength: 50, maxLength: 50 }), async (cmds, onA) => {
      const log = createMemoryLog();
      const a = await createCatalog({ log, logger });
      const b = await createCatalog({ log, logger });
      try {
        // The results of the submits that appended an entry (a refusal or no-op found by the check appends none).
        const appended: ApplyResult[] = [];
        for (const [i, c] of cmds.entries()) {
          const writer = onA[i] ? a : b;
          const before = await log.lastIndex();
          await writer.waitForIndex(before - 1n);
          const result = await writer.submit(resolveCurrent(writer, c));
          if ((await log.lastIndex()) > before) appended.push(result);
        }
        const last = await log.lastIndex();
        await a.waitForIndex(last - 1n);
        await b.waitForIndex(last - 1n);
        const truth = await replay(log);
        assert.equal(a.snapshot().state, truth.state);
        assert.equal(b.snapshot().state, truth.state);
        for (const r of appended)
          assert.ok(
            isDeepStrictEqual(r, truth.results.get(r.index)),
            `result at ${r.index}: ${inspect(r)} ${inspect(truth.results.get(r.index))}`,
          );
      } finally {
        await a.close();
        await b.close();
        await log.close();
      }
    }),
    { numRuns: 40 },
  );
});

test('an object whose JSON is within a stamp of the size limit is applied from its text, so the writer takes it as every other hub does', async () => {
  // The check stamps CreateIndex/ModifyIndex into its parse; a service this close to
  // MAX_OBJECT_BYTES would pass the limit as the log carries it and fail with the
  // stamps in, so the writer alone would refuse it if it applied that parse.
  const base = serviceInput('big-1', 'big', { Tags: [''] });
  const room = MAX_OBJECT_BYTES - 10 - JSON.stringify(base).length;
  const command = register('n-big', { service: { ...base, Tags: ['x'.repeat(room)] } });
  const log = createMemoryLog();
  const a = await createCatalog({ log, logger });
  const b = await createCatalog({ log, logger });
  try {
    const result = await a.submit(command);
    assert.equal(result.ok, true, JSON.stringify(result.error));
    await b.waitForIndex(result.index - 1n);
    assert.equal(a.snapshot().state, b.snapshot().state);
    assert.equal(a.serviceInstances('big').value.length, 1);
  } finally {
    await a.close();
    await b.close();
    await log.close();
  }
});

test("the caller's command is neither stored nor changed: changing it after the submit changes nothing", async () => {
  const command = register('n1', {
    service: serviceInput('web-1', 'web', { Meta: { v: '1' }, Tags: ['a'] }),
    nodeExtra: { Meta: { v: '1' } },
  });
  const txn: Command = {
    type: 'txn',
    ops: [{ op: 'service-set', node: 'n1', service: serviceInput('web-2', 'web', { Meta: { v: '1' } }) }],
  };
  const before = structuredClone([command, txn]);
  const log = createMemoryLog();
  const catalog = await createCatalog({ log, logger });
  try {
    assert.equal((await catalog.submit(command)).ok, true);
    const result = await catalog.submit(txn);
    assert.equal(result.ok, true);
    assert.deepEqual([command, txn], before, "the submit wrote nothing into the caller's objects (no indexes stamped)");
    const stored = catalog.snapshot().state;
    if (command.type !== 'register' || txn.type !== 'txn' || txn.ops[0]!.op !== 'service-set')
      throw new Error('unreachable');
    command.node.Meta!['v'] = '2';
    command.service!.Meta!['v'] = '2';
    command.service!.Tags!.push('b');
    txn.ops[0]!.service.Meta!['v'] = '2';
    assert.equal(catalog.snapshot().state, stored);
    assert.deepEqual(catalog.node('n1').value?.Node.Meta, { v: '1' });
    assert.deepEqual(
      catalog.serviceInstances('web').value.map((i) => [i.Service.ID, i.Service.Meta, i.Service.Tags]),
      [
        ['web-1', { v: '1' }, ['a']],
        ['web-2', { v: '1' }, []],
      ],
    );
    // What the submit answered is the stored state: frozen, like every read.
    const [set] = result.txnResults as [{ Service: object }];
    assert.ok(Object.isFrozen(set.Service));
  } finally {
    await catalog.close();
    await log.close();
  }
});

test('the same command submitted twice at once, around another change of its node, is applied twice, each time from a parse of its own', async () => {
  const x = register('n1', { nodeExtra: { Meta: { v: 'x' } } });
  const y = register('n1', { nodeExtra: { Meta: { v: 'y' } } });
  const log = createMemoryLog();
  const a = await createCatalog({ log, logger });
  const b = await createCatalog({ log, logger });
  try {
    // All three pass their check against the same state, so all three are appended: x, y, x.
    const results = await Promise.all([a.submit(x), a.submit(y), a.submit(x)]);
    assert.deepEqual(
      results.map((r) => r.ok),
      [true, true, true],
    );
    assert.deepEqual(
      results.map((r) => r.index),
      [2n, 3n, 4n],
    );
    await b.waitForIndex(3n);
    assert.deepEqual(a.node('n1').value?.Node.Meta, { v: 'x' });
    assert.equal(a.node('n1').value?.Node.ModifyIndex, 4);
    assert.equal(a.snapshot().state, b.snapshot().state);
    assert.equal(a.snapshot().state, (await replay(log)).state);
  } finally {
    await a.close();
    await b.close();
    await log.close();
  }
});
