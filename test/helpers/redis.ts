// Real Redis processes for tests, on free loopback ports: redis-server (alone, as a
// replica, with TLS) and redis-sentinel. Without options nothing is persisted
// (--save '' --appendonly no); with { appendonly: true, dir } the AOF lives in `dir`
// and is fsynced on every write, so a test can kill the server and start a new
// one on the same data.
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnTracked } from './procs';

export interface RedisOptions {
  appendonly?: boolean;
  /** Working directory for the AOF; required with appendonly. */
  dir?: string;
  /** Listen here instead of on a fresh free port (to restart a killed server where its clients expect it). */
  port?: number;
  /** Start as a replica of the server on this port. */
  replicaOf?: number;
  /** Serve TLS only (no plain port), with these PEM files. */
  tls?: { cert: string; key: string; ca: string };
  /** Require this password (requirepass; a replica also uses it as masterauth). */
  password?: string;
}

export interface RunningRedis {
  url: string;
  port: number;
  /** The redis-server process (for its CPU time in benches). */
  pid: number;
  /** Everything the process printed so far. */
  output(): string;
  /** Kills the server (SIGKILL: nothing gets a last chance to flush) and waits for it to exit. */
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  server.close();
  await once(server, 'close');
  return port;
}

/** Sends PING as an inline command; resolves true on +PONG, false on refusal or anything else. */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    let reply = '';
    const finish = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('error', () => finish(false));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) finish(reply.startsWith('+PONG'));
    });
    socket.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
  });
}

/** Spawns a Redis binary and resolves once its output matches `ready` (an event, not a timer). */
async function spawnUntil(
  command: string,
  args: string[],
  ready: RegExp,
): Promise<{ child: ChildProcess; output: () => string; exited: Promise<unknown> }> {
  const child: ChildProcess = spawnTracked(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (c) => (output += c));
  child.stderr!.on('data', (c) => (output += c));
  const exited = once(child, 'exit');
  await new Promise<void>((resolve, reject) => {
    const onData = () => {
      if (ready.test(output)) {
        child.stdout!.off('data', onData);
        child.off('exit', onExit);
        resolve();
      }
    };
    const onExit = (code: number | null) => reject(new Error(`${command} exited (${code}) before ready:\n${output}`));
    child.stdout!.on('data', onData);
    child.once('exit', onExit);
    child.once('error', reject);
    onData();
  });
  return { child, output: () => output, exited };
}

function stopper(child: ChildProcess, exited: Promise<unknown>): () => Promise<void> {
  let stopped: Promise<void> | undefined;
  return () =>
    (stopped ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    })());
}

export async function startRedis(options: RedisOptions = {}): Promise<RunningRedis> {
  if (options.appendonly && !options.dir) throw new Error('startRedis: appendonly needs a dir');
  const port = options.port ?? (await freePort());
  // A replica's first sync starts at once (Redis otherwise waits 5 s for more replicas to join a diskless sync).
  // set-proc-title no: the title Redis writes over its argv would clobber the environment
  // /proc shows, and with it the marker the suite's leak sweep finds its processes by.
  const args = [
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--protected-mode',
    'no',
    '--repl-diskless-sync-delay',
    '0',
    '--set-proc-title',
    'no',
  ];
  if (options.tls) {
    const { cert, key, ca } = options.tls;
    args.push(
      '--port',
      '0',
      '--tls-port',
      String(port),
      '--tls-cert-file',
      cert,
      '--tls-key-file',
      key,
      '--tls-ca-cert-file',
      ca,
      '--tls-auth-clients',
      'no',
    );
  } else {
    args.push('--port', String(port));
  }
  // Never the current directory: a replica would leave its dump.rdb in the repository.
  const scratch = options.dir ? undefined : await mkdtemp(join(tmpdir(), 'xdshub-redis-'));
  args.push('--dir', options.dir ?? scratch!);
  if (options.appendonly) args.push('--appendonly', 'yes', '--appendfsync', 'always');
  else args.push('--appendonly', 'no');
  if (options.password) args.push('--requirepass', options.password, '--masterauth', options.password);
  if (options.replicaOf !== undefined) args.push('--replicaof', '127.0.0.1', String(options.replicaOf));

  // A replica is ready once its first sync with the primary finished (full or partial).
  const ready =
    options.replicaOf !== undefined
      ? /MASTER <-> REPLICA sync: (Finished with success|Master accepted a Partial Resynchronization)/
      : /Ready to accept connections/;
  const { child, output, exited } = await spawnUntil('redis-server', args, ready);
  if (!options.tls && !options.password && !(await ping(port))) {
    child.kill('SIGKILL');
    throw new Error(`redis-server on ${port} did not answer PING:\n${output()}`);
  }
  const auth = options.password ? `:${encodeURIComponent(options.password)}@` : '';
  const stop = stopper(child, exited);
  return {
    url: `${options.tls ? 'rediss' : 'redis'}://${auth}127.0.0.1:${port}`,
    port,
    pid: child.pid!,
    output,
    async stop() {
      await stop();
      if (scratch) await rm(scratch, { recursive: true, force: true });
    },
  };
}

export interface SentinelOptions {
  masterName: string;
  masterPort: number;
  /** Where the sentinel writes its config file (it rewrites it at every change). */
  dir: string;
  quorum?: number;
  /** How long the primary must be unreachable before it counts as down. */
  downAfterMs?: number;
}

export interface RunningSentinel {
  port: number;
  output(): string;
  stop(): Promise<void>;
}

export async function startSentinel(options: SentinelOptions): Promise<RunningSentinel> {
  const port = await freePort();
  const conf = join(options.dir, `sentinel-${port}.conf`);
  const { masterName, masterPort } = options;
  await writeFile(
    conf,
    [
      `port ${port}`,
      'bind 127.0.0.1',
      'protected-mode no',
      'set-proc-title no',
      `dir ${options.dir}`,
      `sentinel monitor ${masterName} 127.0.0.1 ${masterPort} ${options.quorum ?? 2}`,
      `sentinel down-after-milliseconds ${masterName} ${options.downAfterMs ?? 1_000}`,
      `sentinel failover-timeout ${masterName} 10000`,
      `sentinel parallel-syncs ${masterName} 1`,
      '',
    ].join('\n'),
  );
  const { child, output, exited } = await spawnUntil('redis-sentinel', [conf], /\+monitor master/);
  return { port, output, stop: stopper(child, exited) };
}
