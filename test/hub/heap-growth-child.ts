// Child of heap-growth.test.ts: sets the growth with applyHeapGrowth (argv[2],
// percent), holds ~64 MiB live, promotes ~40 MiB of garbage to the old
// generation (each batch kept across young collections, then dropped) and
// prints how many full GCs that promotion started. argv[3] `until-full`: waits
// for one (it may still be marking on helper threads when the loop ends);
// otherwise lets a second pass for one to show, then counts. Run with
// --expose-gc and --no-memory-reducer (whose own full GC, 8 s after start-up,
// is not the promotion's).
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { setImmediate as turn } from 'node:timers/promises';
import { applyHeapGrowth } from '../../src/heap-growth';
import { letTimePass, until } from '../helpers/until';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
applyHeapGrowth(Number(process.argv[2]));
let full = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries())
    if ((e as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) full++;
}).observe({ entryTypes: ['gc'] });

async function main() {
  const live: number[][] = [];
  for (let i = 0; i < 64 * 1024; i++) live.push(new Array(120).fill(i));
  gc!();
  await turn(); // the forced GC's entry is reported before the count starts
  await turn();
  const before = full;
  const held: number[][][] = [];
  for (let round = 0; round < 40; round++) {
    const batch: number[][] = [];
    for (let i = 0; i < 1024; i++) batch.push(new Array(120).fill(round));
    held.push(batch);
    if (held.length > 3) held.shift();
    for (let j = 0; j < 20_000; j++) new Array(16); // young garbage: scavenges promote what `held` keeps
    await turn();
  }
  if (process.argv[3] === 'until-full')
    await until(() => full > before, { what: 'a full GC the promotion started', timeout: 20_000 });
  else await letTimePass(1_000, 'a full GC the promotion started would finish and be reported');
  process.stdout.write(`${JSON.stringify({ full: full - before, live: live.length })}\n`);
}
void main();
