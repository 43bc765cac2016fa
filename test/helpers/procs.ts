// Every process a test starts goes through here, so that it dies with the test
// however the test ends (docs/testing.md):
// - each child runs in its own process group (`detached`), and is killed as a group
//   (`kill(-pid)`), so what it started itself goes too (unshare's node, Envoy's
//   hot-restart wrapper, a shell's children);
// - one registry per process kills every child still running at the end of the
//   test file (node:test's root `after`), on `exit`, and on SIGINT/SIGTERM/SIGHUP
//   (the runner cancels a timed-out file with SIGTERM) before dying of the signal;
// - a SIGKILLed test process runs none of that, so the first spawn also starts a
//   watchdog (scripts/proc-watchdog.mjs) that notices this process is gone and
//   kills everything carrying this process's marker in its environment;
// - scripts/run-tests.mjs sweeps the run's own marker after the suite and reports
//   what it had to kill: a leak is a bug.

import type { ChildProcess, ForkOptions, SpawnOptions } from 'node:child_process';
import { fork, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { after } from 'node:test';

/** Set by scripts/run-tests.mjs for the whole run; every process of the run inherits it. */
export const RUN_MARKER = 'XDSHUB_TEST_RUN';
/** Set by this module in each process that imports it, so children inherit this process's own mark. */
export const OWNER_MARKER = 'XDSHUB_TEST_OWNER';

const owner = `${process.pid}-${randomUUID()}`;
process.env[OWNER_MARKER] = owner;

const WATCHDOG = join(__dirname, '..', '..', 'scripts', 'proc-watchdog.mjs');
const running = new Set<ChildProcess>();
let hooked = false;

function alive(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null && child.pid !== undefined;
}

/**
 * SIGKILL (or `signal`) to the child's whole process group, even once the child itself
 * has exited (its own children may not have); to the child alone if it leads no group.
 */
export function killTree(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    if (alive(child)) child.kill(signal);
  }
}

/** Kills every registered child that is still running; returns how many there were. */
export function killAll(): number {
  let n = 0;
  for (const child of running) {
    if (alive(child)) n++;
    killTree(child);
  }
  running.clear();
  return n;
}

function onSignal(signal: NodeJS.Signals): void {
  killAll();
  // Die of the signal as if nobody had listened (other listeners had their turn).
  process.removeAllListeners(signal);
  process.kill(process.pid, signal);
}

/** The watchdog for a SIGKILL of this process: it holds our end of a pipe and sweeps when it closes. */
function startWatchdog(): void {
  const env = { ...process.env };
  delete env[OWNER_MARKER];
  delete env[RUN_MARKER];
  const dog = spawn(process.execPath, [WATCHDOG, String(process.pid), `${OWNER_MARKER}=${owner}`], {
    detached: true,
    env,
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  dog.on('error', () => undefined);
  dog.unref();
  (dog.stdin as unknown as { unref(): void }).unref();
}

function hook(): void {
  if (hooked) return;
  hooked = true;
  process.on('exit', killAll);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, onSignal);
  startWatchdog();
}

// Inside a test file run by `node --test`: kill what is left when the file's tests are done,
// rather than leave the file hanging on a forgotten child until the runner's timeout. Registered
// once the file's top level has run, so that it runs after the file's own root `after` hooks
// (which may still need a Redis to close a hub cleanly).
if (process.env['NODE_TEST_CONTEXT']) setImmediate(() => after(() => void killAll()));

/** Registers a child spawned elsewhere; it should have been spawned `detached` for its group to go with it. */
export function track<T extends ChildProcess>(child: T): T {
  hook();
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

function marked(env: NodeJS.ProcessEnv | undefined): NodeJS.ProcessEnv {
  const run = process.env[RUN_MARKER];
  return { ...(env ?? process.env), [OWNER_MARKER]: owner, ...(run ? { [RUN_MARKER]: run } : {}) };
}

/**
 * child_process.spawn, in its own process group, carrying the markers, registered.
 * Typed as spawn itself, so the streams a call pipes are non-null as they are for spawn.
 */
export const spawnTracked = ((command: string, args?: readonly string[] | SpawnOptions, options?: SpawnOptions) => {
  const argv = Array.isArray(args) ? (args as readonly string[]) : [];
  const opts = (Array.isArray(args) ? options : (args as SpawnOptions | undefined)) ?? {};
  return track(spawn(command, argv, { ...opts, detached: true, env: marked(opts.env) }));
}) as typeof spawn;

/** child_process.fork (IPC channel included), in its own process group, carrying the markers, registered. */
export function forkTracked(modulePath: string, args: readonly string[] = [], options: ForkOptions = {}): ChildProcess {
  return track(fork(modulePath, args, { ...options, detached: true, env: marked(options.env) }));
}

/** What execFileTracked resolves with, and what its rejection carries besides the exit code or signal. */
export interface ExecResult {
  stdout: string;
  stderr: string;
}

/**
 * promisify(execFile) for tests: resolves with { stdout, stderr } on exit 0; otherwise
 * rejects with an Error carrying code (the exit code), signal, stdout and stderr. Built
 * on spawnTracked (execFile cannot start a process group); `timeout` kills the group.
 */
export function execFileTracked(
  file: string,
  args: readonly string[],
  options: SpawnOptions & { timeout?: number; encoding?: 'utf8' } = {},
): Promise<ExecResult> {
  const { timeout, encoding: _utf8, ...spawnOptions } = options;
  const child = spawnTracked(file, args, { ...spawnOptions, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const timer = timeout ? setTimeout(() => killTree(child, 'SIGTERM'), timeout) : undefined;
  return new Promise((resolve, reject) => {
    child.once('error', (err) => reject(Object.assign(err, { stdout, stderr })));
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) return resolve({ stdout, stderr });
      const err = new Error(`${file} ${args.join(' ')} failed (${code ?? signal}):\n${stderr}`);
      reject(Object.assign(err, { code, signal, stdout, stderr }));
    });
  });
}

/** Starts the watchdog and the hooks now, for a test whose children some library spawns (Chromium). */
export function guardProcesses(): void {
  hook();
}
