// The TTL scheduler against real catalogs on one in-memory log.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pino from 'pino';
import type { Catalog } from '../../src/catalog/catalog';
import type { Command } from '../../src/catalog/commands';
import { createCatalog } from '../../src/catalog/store';
import { expiredOutput, startTtlScheduler } from '../../src/catalog/ttl';
import { createMemoryLog } from '../../src/log/memory';
import { checkInput, register, serviceInput } from './fixtures';

const logger = pino({ level: 'silent' });

const ttlCheck = (ttl: string, output = '') =>
  register('n1', {
    service: serviceInput('s1', 'svc'),
    checks: [checkInput('ttl', { ServiceID: 's1', Type: 'ttl', Definition: { TTL: ttl }, Output: output })],
  });

/** Resolves with the first applied index at which the check is critical. */
function whenCritical(catalog: Catalog): Promise<bigint> {
  return new Promise((resolve) => {
    const off = catalog.onApplied((index) => {
      if (catalog.ttlCheck('n1', 'ttl')?.check.Status === 'critical') {
        off();
        resolve(index);
      }
    });
  });
}

test('Consul wording for the expiry output', () => {
  assert.equal(expiredOutput(''), 'TTL expired');
  assert.equal(expiredOutput('ok'), 'TTL expired (last output before timeout follows): ok');
});

test('an expiry fires once and is applied once with two schedulers on two catalogs sharing one log', async () => {
  const log = createMemoryLog();
  const a = await createCatalog({ log, logger });
  const b = await createCatalog({ log, logger });
  // Registered before the schedulers start: both time it from their start.
  await a.submit(ttlCheck('100ms', 'fine'));
  await b.waitForIndex(0n);
  const changes: bigint[] = [];
  a.onApplied((index, events) => {
    if (events.length > 0) changes.push(index);
  });
  // Both schedulers' submits are kept, so the test knows when each expiry is settled.
  const submits: Promise<unknown>[] = [];
  let bothSubmitted!: () => void;
  const submitted = new Promise<void>((resolve) => (bothSubmitted = resolve));
  const tracked = (c: Catalog): Catalog => ({
    ...c,
    submit(cmd) {
      const p = c.submit(cmd);
      if (submits.push(p) === 2) bothSubmitted();
      return p;
    },
  });
  const sa = startTtlScheduler({ catalog: tracked(a), logger, nodeName: 'hub-a' });
  const sb = startTtlScheduler({ catalog: tracked(b), logger, nodeName: 'hub-b' });
  try {
    const criticalAt = await whenCritical(a);
    await submitted;
    await Promise.all(submits);
    // Entry 1 is the origin, 2 the registration. The two expiries race: the
    // second one is either appended and changes nothing (its hub had not applied
    // the first yet), or found to be a no-op before append and never logged.
    const entries = (await log.read(3n)).map((e) => JSON.parse(e.payload) as Command);
    assert.ok(entries.length === 1 || entries.length === 2, `one or two expiry entries, got ${entries.length}`);
    for (const c of entries) assert.ok(c.type === 'check-ttl-expire' && c.ifModifyIndex === 2);
    assert.equal(criticalAt, 3n);
    assert.deepEqual(changes, [3n], 'only the first expiry changed anything');
    const state = a.ttlCheck('n1', 'ttl')!;
    assert.deepEqual(
      [state.check.Output, state.check.ModifyIndex],
      ['TTL expired (last output before timeout follows): fine', 3],
    );
    await b.waitForIndex(BigInt(entries.length + 1));
    assert.equal(b.snapshot().state, a.snapshot().state);
  } finally {
    sa.stop();
    sb.stop();
    await a.close();
    await b.close();
    await log.close();
  }
});

test('a refresh re-arms the timer: the expiry is timed from the refresh and names its index', async (t) => {
  // setTimeout is mocked: time moves only when the test ticks it, so no step
  // can race a real 400 ms TTL on a busy machine.
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const log = createMemoryLog();
  const catalog = await createCatalog({ log, logger });
  // Every expiry the scheduler submits, applied or not.
  const expiries: Command[] = [];
  const watched: Catalog = {
    ...catalog,
    submit: (cmd) => {
      if (cmd.type === 'check-ttl-expire') expiries.push(cmd);
      return catalog.submit(cmd);
    },
  };
  const scheduler = startTtlScheduler({ catalog: watched, logger });
  try {
    const critical = whenCritical(catalog);
    await catalog.submit(ttlCheck('400ms'));
    t.mock.timers.tick(300);
    const refresh = await catalog.submit({
      type: 'check-update',
      node: 'n1',
      checkId: 'ttl',
      status: 'passing',
      output: 'alive',
    });
    assert.equal(refresh.index, 3n);
    t.mock.timers.tick(399); // 700 ms after the registration, 399 after the refresh
    assert.equal(expiries.length, 0, 'nothing expires 400 ms after the registration: the refresh re-armed the timer');
    assert.equal(catalog.ttlCheck('n1', 'ttl')!.check.Status, 'passing');
    t.mock.timers.tick(1);
    const at = await critical;
    assert.equal(at, 4n);
    assert.deepEqual(
      expiries.map((e) => e.type === 'check-ttl-expire' && e.ifModifyIndex),
      [3],
      'one expiry, naming the refresh',
    );
    assert.equal(
      catalog.ttlCheck('n1', 'ttl')!.check.Output,
      'TTL expired (last output before timeout follows): alive',
    );
  } finally {
    scheduler.stop();
    await catalog.close();
    await log.close();
  }
});

test('timers follow the catalog: removed checks and stop() cancel them, unparseable TTLs are not timed', async () => {
  const log = createMemoryLog();
  const catalog = await createCatalog({ log, logger });
  const scheduler = startTtlScheduler({ catalog, logger });
  try {
    await catalog.submit(register('n0', { checks: [checkInput('bad', { Definition: { TTL: 'soon' } })] }));
    assert.equal(scheduler.pending(), 0);
    await catalog.submit(register('n2', { checks: [checkInput('gone', { Definition: { TTL: '1h' } })] }));
    await catalog.submit(register('n3', { checks: [checkInput('kept', { Definition: { TTL: '1h' } })] }));
    assert.equal(scheduler.pending(), 2);
    await catalog.submit({ type: 'deregister', node: 'n2' });
    assert.equal(scheduler.pending(), 1);
    await catalog.submit(register('n3', { checks: [checkInput('kept', { Definition: {} })] }));
    assert.equal(scheduler.pending(), 0, 'a check that loses its TTL is no longer timed');
    await catalog.submit(register('n3', { checks: [checkInput('kept', { Definition: { TTL: '1h' } })] }));
    await catalog.submit({ type: 'restore', state: catalog.snapshot().state });
    assert.equal(scheduler.pending(), 1, 'a reset keeps timers of checks whose refresh did not change');
    const refreshIndex = catalog.ttlCheck('n3', 'kept')!.refreshIndex;
    await catalog.submit({
      type: 'check-ttl-expire',
      node: 'n3',
      checkId: 'kept',
      ifModifyIndex: refreshIndex,
      output: 'TTL expired',
    });
    assert.equal(catalog.ttlCheck('n3', 'kept')!.expired, true);
    const late = startTtlScheduler({ catalog, logger });
    assert.equal(late.pending(), 0, 'a check already expired for its refresh is not timed again');
    late.stop();
    scheduler.stop();
    assert.equal(scheduler.pending(), 0);
  } finally {
    scheduler.stop();
    await catalog.close();
    await log.close();
  }
});
