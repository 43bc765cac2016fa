// The kill path: a test runner in a subprocess runs fixtures/proc-tree.ts (a real
// redis-server and a shell with two children, started through the helpers), and
// then the test or its runner ends in each way it can; afterwards no process of
// that tree survives. Every process of a case carries a fresh PROC_TREE_TAG in
// its environment, which is how the survivors are counted (from /proc).
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { REPO_ROOT } from './hub';
import { spawnTracked } from './procs';
import { tmpDir } from './tmp';
import { until } from './until';

const FIXTURE = join('test', 'helpers', 'fixtures', 'proc-tree.ts');

/** Live (non-zombie) processes started with PROC_TREE_TAG=tag, with their command lines. */
function tagged(tag: string): { pid: number; cmd: string }[] {
  const out: { pid: number; cmd: string }[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (!readFileSync(`/proc/${name}/environ`, 'latin1').split('\0').includes(`PROC_TREE_TAG=${tag}`)) continue;
      const stat = readFileSync(`/proc/${name}/stat`, 'latin1');
      if (stat[stat.lastIndexOf(')') + 2] === 'Z') continue;
      out.push({ pid: Number(name), cmd: readFileSync(`/proc/${name}/cmdline`, 'latin1').split('\0').join(' ') });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

interface Case {
  runner: ChildProcess;
  exited: Promise<[number | null, NodeJS.Signals | null]>;
  /** The fixture's test process, once its whole tree runs (a 'forget' fixture then returns). */
  ready(): Promise<{ filePid: number }>;
  survivors(): { pid: number; cmd: string }[];
}

/** Starts `argv` (a test runner on the fixture) with a fresh tag; kills what the case leaves, whatever happens. */
async function start(t: { after(fn: () => unknown): void }, argv: string[], mode: 'hang' | 'forget'): Promise<Case> {
  const tag = randomUUID();
  const dir = await tmpDir('xdshub-proc-tree');
  const readyFile = join(dir.path, 'ready');
  const goFile = join(dir.path, 'go');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PROC_TREE_TAG: tag,
    PROC_TREE_READY: readyFile,
    PROC_TREE_GO: goFile,
    PROC_TREE_MODE: mode,
  };
  // A top-level runner, not one nested in this file's (which would refuse to run files).
  delete env['NODE_TEST_CONTEXT'];
  const runner = spawnTracked(process.execPath, argv, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  runner.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
  runner.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
  const exited = once(runner, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  t.after(async () => {
    for (const p of tagged(tag)) process.kill(p.pid, 'SIGKILL');
    await dir.cleanup();
  });
  return {
    runner,
    exited,
    async ready() {
      const text = await until(() => existsSync(readyFile) && readFileSync(readyFile, 'utf8'), {
        what: () => `the fixture's tree to start; runner output:\n${output}`,
        timeout: 90_000,
      });
      // The whole tree is up: the test process, redis-server, the shell and its two sleeps.
      await until(
        () => {
          const cmds = tagged(tag).map((p) => p.cmd);
          const sleeps = cmds.filter((c) => c.startsWith('sleep 600')).length;
          return cmds.some((c) => c.startsWith('redis-server')) && sleeps === 2;
        },
        `redis-server and both sleeps running: ${JSON.stringify(tagged(tag))}`,
      );
      writeFileSync(goFile, '');
      return { filePid: Number(text.split(' ')[0]) };
    },
    survivors: () => tagged(tag),
  };
}

async function noSurvivors(c: Case, after: string): Promise<void> {
  const what = () => `${after}: survivors ${JSON.stringify(c.survivors())}`;
  await until(() => c.survivors().length === 0, { what, timeout: 30_000 });
}

/** Each case starts node, tsx and redis-server at least twice over: minutes on a loaded machine. */
const LONG = { timeout: 150_000 };
const nodeTest = (...extra: string[]) => ['--import', 'tsx', '--test', ...extra, FIXTURE];

// Concurrently: the file's own timeout bounds all cases together, and they mostly wait.
describe('the kill path', { concurrency: true }, () => {
  for (const signal of ['SIGKILL', 'SIGTERM'] as const) {
    test(`${signal} of the test file's process: its whole tree dies`, LONG, async (t) => {
      const c = await start(t, nodeTest(), 'hang');
      const { filePid } = await c.ready();
      process.kill(filePid, signal);
      await c.exited;
      await noSurvivors(c, `after ${signal} of ${filePid}`);
    });
  }

  test('a test that times out: its tree dies, and the runner ends', LONG, async (t) => {
    const c = await start(t, nodeTest('--test-timeout=20000'), 'hang');
    await c.ready();
    const [code] = await c.exited;
    assert.notEqual(code, 0);
    await noSurvivors(c, 'after the test timed out');
  });

  test('a test that forgets to stop its processes: the file still ends, and its tree dies', LONG, async (t) => {
    const c = await start(t, nodeTest(), 'forget');
    await c.ready();
    const [code] = await c.exited;
    assert.equal(code, 0);
    await noSurvivors(c, 'after the file ended');
  });

  for (const signal of ['SIGKILL', 'SIGINT'] as const) {
    test(`${signal} of scripts/run-tests.mjs: the runner and every test process die`, LONG, async (t) => {
      const c = await start(t, ['scripts/run-tests.mjs', FIXTURE], 'hang');
      await c.ready();
      c.runner.kill(signal);
      const [code] = await c.exited;
      if (signal === 'SIGINT') assert.equal(code, 130);
      await noSurvivors(c, `after ${signal} of run-tests.mjs`);
    });
  }
});
