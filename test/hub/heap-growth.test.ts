// --gc-heap-growth (src/heap-growth.ts; docs/operations.md "CPU and the heap's
// growth"): the factor reaches V8 (with the same live heap and the same garbage
// promoted, 10% starts full GCs that the default 100% does not), and the
// controller hands the choice back to V8 during a burst of large writes.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { createHeapGrowth, DEFAULT_HEAP_GROWTH } from '../../src/heap-growth';
import { until } from '../helpers/until';

const run = promisify(execFile);
const CHILD = join(__dirname, 'heap-growth-child.ts');

/** Full GCs the child's promotion started at `percent`; `untilFull`: the child waits for the first. */
async function fullGcs(percent: number, untilFull: boolean): Promise<number> {
  const args = [
    '--expose-gc',
    '--no-memory-reducer',
    '--import',
    'tsx',
    CHILD,
    String(percent),
    untilFull ? 'until-full' : 'count',
  ];
  const { stdout } = await run(process.execPath, args, { timeout: 90_000 });
  return (JSON.parse(stdout.trim()) as { full: number }).full;
}

test('a 10% growth runs full GCs while the same promotion at the default 100% runs none', async () => {
  assert.equal(DEFAULT_HEAP_GROWTH, 100);
  const [tight, grown] = await Promise.all([fullGcs(10, true), fullGcs(DEFAULT_HEAP_GROWTH, false)]);
  assert.ok(tight >= 1, `10%: ${tight} full GCs`);
  assert.equal(grown, 0, `100%: ${grown} full GCs`);
});

test("the controller: its factor at start, V8's own (0) from the first large write, back once the writes are quiet", async () => {
  const applied: number[] = [];
  const growth = createHeapGrowth({ percent: 100, idleMs: 20, apply: (p) => applied.push(p) });
  assert.deepEqual(applied, [100]);
  growth.noteLarge();
  growth.noteLarge();
  assert.deepEqual(applied, [100, 0], 'one switch per burst, not per write');
  assert.equal(growth.current(), 0);
  await until(() => growth.current() === 100, { what: 'the factor back after the burst' });
  assert.deepEqual(applied, [100, 0, 100]);
  growth.noteLarge();
  assert.deepEqual(applied, [100, 0, 100, 0], 'a new burst switches again');
  growth.close();
});

test('--gc-heap-growth 0: the controller never touches the flag', () => {
  const applied: number[] = [];
  const growth = createHeapGrowth({ percent: 0, idleMs: 20, apply: (p) => applied.push(p) });
  growth.noteLarge();
  assert.deepEqual(applied, []);
  assert.equal(growth.current(), 0);
  growth.close();
});
