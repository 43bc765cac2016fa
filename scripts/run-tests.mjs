// Runs the test suite with Node's built-in runner, TypeScript loaded through tsx.
// Usage: node scripts/run-tests.mjs [--unit] [--with-cpu-hog] [file-or-dir-filter ...]
//   --unit          only *.test.ts that are not *.int.test.ts
//   --with-cpu-hog  two busy loops run beside the suite (a loaded machine), killed afterwards
// Every process of the run carries XDSHUB_TEST_RUN=<uuid> in its environment. The runner
// runs in its own process group; when it ends, or this script is interrupted, the group
// is killed and every process still carrying the marker is killed and reported: a test
// that leaves a process behind is a bug, and the run fails. A watchdog does the same if
// this script itself is SIGKILLed. See docs/testing.md.

import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { findMarked, sweep } from './proc-sweep.mjs';

const args = process.argv.slice(2);
const unitOnly = args.includes('--unit');
const withHog = args.includes('--with-cpu-hog');
const filters = args.filter((a) => !a.startsWith('--'));

function walk(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...walk(p));
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

let files = walk('test')
  .map((f) => relative('.', f))
  .sort();
if (unitOnly) files = files.filter((f) => !f.endsWith('.int.test.ts'));
// A filter naming an existing .ts file runs that file even if it is no *.test.ts (a fixture).
const named = filters.filter((x) => x.endsWith('.ts') && !files.includes(x) && existsSync(x));
if (filters.length > 0) files = [...files.filter((f) => filters.some((x) => f.includes(x))), ...named];
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}

const RUN = 'XDSHUB_TEST_RUN';
const runId = randomUUID();
const marker = `${RUN}=${runId}`;
const unmarked = { ...process.env };
delete unmarked[RUN];
delete unmarked['XDSHUB_TEST_OWNER'];
const started = Date.now();

// Busy loops at normal priority, outside the marked tree (they are killed, not swept). Each
// checks now and then that this script is still its parent, so a SIGKILL here leaves no hog.
const HOG = `const p = ${process.pid}; for (let i = 1; ; i++) if (i % 50_000_000 === 0 && process.ppid !== p) break;`;
const hog = () => spawn(process.execPath, ['-e', HOG], { stdio: 'ignore', env: unmarked });
const hogs = withHog ? [hog(), hog()] : [];

const runner = spawn(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-timeout=180000', ...files],
  { stdio: 'inherit', detached: true, env: { ...process.env, [RUN]: runId } },
);
const WATCHDOG = fileURLToPath(new URL('proc-watchdog.mjs', import.meta.url));
const watchdog = spawn(process.execPath, [WATCHDOG, String(process.pid), marker, String(runner.pid)], {
  detached: true,
  stdio: ['pipe', 'ignore', 'ignore'],
  env: unmarked,
});
watchdog.unref();

let interrupted;
function killRunner(signal) {
  try {
    process.kill(-runner.pid, signal);
  } catch {
    // the group is gone
  }
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    if (interrupted) return killRunner('SIGKILL');
    interrupted = signal;
    // SIGTERM first: each test file's registry kills its children as it goes.
    killRunner('SIGTERM');
    setTimeout(() => killRunner('SIGKILL'), 3_000).unref();
  });
}

const KINDS = [
  ['hub', /cli\/main\.[jt]s serve/],
  ['envoy', /_bin\/envoy/],
  ['redis-server', /redis-server/],
  ['redis-sentinel', /redis-sentinel/],
  ['chromium', /chrom/],
  ['python3', /python3/],
];
const kindOf = (cmd) => KINDS.find(([, re]) => re.test(cmd))?.[0] ?? 'other';

/** Waits a moment for processes that are already dying (SIGKILLed by a file's exit hook), then kills the rest. */
async function leftovers() {
  for (let i = 0; i < 30 && findMarked(marker).length > 0; i++) await sleep(100);
  return sweep(marker);
}

runner.on('exit', async (code, signal) => {
  killRunner('SIGKILL');
  for (const hog of hogs) hog.kill('SIGKILL');
  const leaked = await leftovers();
  const remaining = findMarked(marker);
  watchdog.kill('SIGKILL');
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const byKind = {};
  for (const p of leaked) byKind[kindOf(p.cmd)] = (byKind[kindOf(p.cmd)] ?? 0) + 1;
  const summary = Object.entries(byKind)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  console.error(
    `run-tests: ${files.length} files in ${seconds} s${withHog ? ' beside 2 busy loops' : ''}; ` +
      `leftover processes killed: ${leaked.length}${summary ? ` (${summary})` : ''}; ` +
      `still running: ${remaining.length}`,
  );
  if (leaked.length > 0 && !interrupted) {
    console.error('run-tests: processes outlived the tests that started them (a leak: fix the test or its helper):');
    for (const p of leaked) console.error(`  ${p.pid} ${p.cmd.slice(0, 200)}`);
  }
  if (interrupted) process.exit(130);
  const failed = (code ?? (signal ? 1 : 0)) !== 0;
  process.exit(failed || leaked.length > 0 || remaining.length > 0 ? 1 : 0);
});
