// Starts a real redis-server child on a free loopback port for one test file.
// Without options nothing is persisted (--save '' --appendonly no); with
// { appendonly: true, dir } the AOF lives in `dir` and is fsynced on every write,
// so a test can kill the server and start a new one on the same data.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, Socket } from 'node:net';

export interface RedisOptions {
  appendonly?: boolean;
  /** Working directory for the AOF; required with appendonly. */
  dir?: string;
  /** Listen here instead of on a fresh free port (to restart a killed server where its clients expect it). */
  port?: number;
}

export interface RunningRedis {
  url: string;
  port: number;
  /** Kills the server (SIGKILL: nothing gets a last chance to flush) and waits for it to exit. */
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
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

export async function startRedis(options: RedisOptions = {}): Promise<RunningRedis> {
  if (options.appendonly && !options.dir) throw new Error('startRedis: appendonly needs a dir');
  const port = options.port ?? (await freePort());
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--protected-mode', 'no'];
  if (options.appendonly) args.push('--appendonly', 'yes', '--appendfsync', 'always', '--dir', options.dir!);
  else args.push('--appendonly', 'no');
  if (options.dir && !options.appendonly) args.push('--dir', options.dir);

  const child: ChildProcess = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (c) => (output += c));
  child.stderr!.on('data', (c) => (output += c));
  const exited = once(child, 'exit');

  // Redis logs "Ready to accept connections" once it listens; wait for that line
  // (an event, not a timer), then confirm with a real PING.
  await new Promise<void>((resolve, reject) => {
    const onData = () => {
      if (output.includes('Ready to accept connections')) {
        child.stdout!.off('data', onData);
        child.off('exit', onExit);
        resolve();
      }
    };
    const onExit = (code: number | null) => reject(new Error(`redis-server exited (${code}) before ready:\n${output}`));
    child.stdout!.on('data', onData);
    child.once('exit', onExit);
    child.once('error', reject);
    onData();
  });
  if (!(await ping(port))) {
    child.kill('SIGKILL');
    throw new Error(`redis-server on ${port} did not answer PING:\n${output}`);
  }

  let stopped: Promise<void> | undefined;
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop() {
      stopped ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        await exited;
      })();
      return stopped;
    },
  };
}
