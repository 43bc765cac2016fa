// Test hubs: in-process (memory log, ports 0, silent) for app.inject() and real
// sockets, and as a real child process (`xdshub serve`) for durability tests.
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { type Config, DEFAULTS } from '../../src/config';
import { createHub, type Hub, type HubOptions, type HubParts, type HubWith, type NoParts } from '../../src/hub';
import { createLogger } from '../../src/logger';
import { killTree, spawnTracked } from './procs';
import { until } from './until';

export const REPO_ROOT = join(__dirname, '..', '..');

export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    ...DEFAULTS,
    store: { kind: 'memory' },
    httpPort: 0,
    grpcPort: 0,
    bind: '127.0.0.1',
    logLevel: 'silent',
    nodeName: 'hub-test',
    compactEvery: 0,
    ...overrides,
  };
}

/**
 * The one in-process test hub: the test config with `overrides`, and the parts
 * `options.parts` asks for (none: the HTTP API alone; ALL_PARTS: as `xdshub serve`).
 */
export async function startHub<const P extends HubParts = NoParts>(
  overrides: Partial<Config> = {},
  options: HubOptions<P> = {},
): Promise<HubWith<P>> {
  const config = testConfig(overrides);
  return createHub(config, createLogger(config.logLevel), options);
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body parsed as JSON (undefined when it is not JSON). */
  json: any;
  index: bigint;
}

/** One request through app.inject(); body objects are sent as JSON. */
export async function call(
  hub: Hub,
  method: string,
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const res = await hub.http.inject({
    method: method as 'GET',
    url,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { payload: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  let json: unknown;
  try {
    json = JSON.parse(res.body);
  } catch {
    json = undefined;
  }
  return {
    status: res.statusCode,
    headers: res.headers as Answer['headers'],
    text: res.body,
    json,
    index: BigInt(String(res.headers['x-consul-index'] ?? '0')),
  };
}

/**
 * Resolves once `n` blocking queries are waiting on `hub` (the xdshub_http_blocking_queries
 * gauge): each is past its limits, in its wait window, and watching its token's rights.
 */
export async function blockingQueriesWaiting(hub: Hub, n: number): Promise<void> {
  const gauge = hub.metrics.registry.getSingleMetric('xdshub_http_blocking_queries');
  if (!gauge) throw new Error('the hub has no xdshub_http_blocking_queries gauge');
  let seen = 0;
  const waiting = async () => (seen = (await gauge.get()).values[0]?.value ?? 0) >= n;
  await until(waiting, { what: () => `${n} blocking queries waiting (saw ${seen})` });
}

export interface SpawnedHub {
  child: ChildProcess;
  httpUrl: string;
  grpcAddress: string;
  /** Everything the process wrote on stderr so far (for failure messages). */
  stderr(): string;
  /** Sends a signal and resolves with the exit code (or signal name) once it has exited. */
  stop(signal: NodeJS.Signals): Promise<number | NodeJS.Signals>;
}

/** The compiled entry point `npm start` runs; `npm test` builds it before the suite. */
export const BUILT_MAIN = join(REPO_ROOT, 'dist', 'src', 'cli', 'main.js');

/**
 * Spawns `xdshub serve <args>` and resolves once it printed its startup line.
 * From the TypeScript sources, or with `built` from the compiled dist/ that `npm start` runs.
 */
export async function spawnHub(
  args: string[],
  env: Record<string, string> = {},
  options: {
    built?: boolean;
    /** A command the hub runs under (e.g. `unshare … --`), ending where node's argv begins. */
    wrap?: string[];
    /** Node flags for the hub process (`--cpu-prof`, which NODE_OPTIONS does not take). */
    nodeArgs?: string[];
  } = {},
): Promise<SpawnedHub> {
  if (options.built && !existsSync(BUILT_MAIN))
    throw new Error(`${BUILT_MAIN} is missing: run \`npm run build\` first (npm test does)`);
  const entry = options.built ? [BUILT_MAIN] : ['--import', 'tsx', join(REPO_ROOT, 'src/cli/main.ts')];
  const [command, ...prefix] = options.wrap ?? [];
  const argv = [...(options.nodeArgs ?? []), ...entry, 'serve', ...args];
  const { match, ...spawned } = await spawnServer(
    command ?? process.execPath,
    command ? [...prefix, process.execPath, ...argv] : argv,
    { cwd: REPO_ROOT, env: { ...process.env, XDSHUB_LOG_LEVEL: 'warn', ...env } },
    /^xdshub listening http=(\S+) grpc=(\S+)/,
    'hub',
  );
  return { ...spawned, httpUrl: match[1]!, grpcAddress: match[2]! };
}

/**
 * Spawns a server process and resolves once it printed a stdout line matching
 * `ready` (its match gives the addresses), with what a SpawnedHub has besides them.
 * Rejects with its stderr when it exits first.
 */
export async function spawnServer(
  command: string,
  argv: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv },
  ready: RegExp,
  name: string,
): Promise<Omit<SpawnedHub, 'httpUrl' | 'grpcAddress'> & { match: RegExpExecArray }> {
  const child = spawnTracked(command, argv, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const lines = createInterface({ input: child.stdout! });
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    lines.on('line', (line) => {
      const m = ready.exec(line);
      if (m) resolve(m);
    });
    exited.then(([code, signal]) =>
      reject(new Error(`${name} exited (${code ?? signal}) before starting:\n${stderr}`)),
    );
  });
  return {
    child,
    match,
    stderr: () => stderr,
    async stop(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const [code, sig] = await exited;
      // What the server started itself (a wrapper's child) goes with it.
      killTree(child);
      return code ?? sig!;
    },
  };
}
