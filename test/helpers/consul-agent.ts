// A real Consul (v1.16.1, MPL-2.0, as scripts/ensure-consul-cli.sh builds it)
// running `consul agent -dev` on loopback, as the oracle the hub is compared
// with (test/hub/consul-oracle.int.test.ts). Every port is a free one and DNS is
// off, so it runs beside other tests; it is spawned tracked, so it dies with the test.
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CONSUL_CLI_VERSION, consulCli } from './consul-cli';
import { freePort } from './ports';
import { killTree, spawnTracked } from './procs';
import { tmpDir } from './tmp';
import { until } from './until';

export const CONSUL_VERSION = CONSUL_CLI_VERSION;

/** The binary: the same one the CLI tests use (consul-cli.ts). */
export const consulBinary = consulCli;

/** A port nobody listens on right now (TCP on 127.0.0.1; Serf also takes it for UDP). */
export { freePort };

export interface ConsulAgent {
  /** http://127.0.0.1:PORT */
  httpUrl: string;
  httpPort: number;
  grpcPort: number;
  node: string;
  /** What the agent wrote so far (for failure messages). */
  output(): string;
  stop(): Promise<void>;
}

/** Starts `consul agent -dev` as node `node` of dc1 and resolves once it has a Raft leader. */
export async function startConsulAgent(node = 'oracle'): Promise<ConsulAgent> {
  const bin = consulBinary();
  const dir = await tmpDir('consul-oracle');
  const ports: number[] = [];
  // The OS may hand a just-released port out again: five distinct ones.
  while (ports.length < 5) {
    const port = await freePort();
    if (!ports.includes(port)) ports.push(port);
  }
  const [http, grpc, serfLan, serfWan, server] = ports as [number, number, number, number, number];
  const hcl =
    `ports {\n  http = ${http}\n  grpc = ${grpc}\n  grpc_tls = -1\n  https = -1\n  dns = -1\n` +
    `  serf_lan = ${serfLan}\n  serf_wan = ${serfWan}\n  server = ${server}\n}\n`;
  await writeFile(join(dir.path, 'ports.hcl'), hcl);
  const args = [
    'agent',
    '-dev',
    '-bind',
    '127.0.0.1',
    '-client',
    '127.0.0.1',
    '-node',
    node,
    '-datacenter',
    'dc1',
    '-config-file',
    join(dir.path, 'ports.hcl'),
    '-log-level',
    'warn',
  ];
  const env: NodeJS.ProcessEnv = {};
  // The caller's CONSUL_* (an address, a token) must not reach the oracle.
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('CONSUL_')) env[k] = v;
  const child = spawnTracked(bin, args, { cwd: dir.path, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (output += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (output += d));
  const exited = once(child, 'exit');
  const httpUrl = `http://127.0.0.1:${http}`;
  let gone = false;
  void exited.then(() => (gone = true));
  await until(
    async () => {
      if (gone) throw new Error(`consul agent exited before electing a leader:\n${output}`);
      const res = await fetch(`${httpUrl}/v1/status/leader`).catch(() => undefined);
      if (!res?.ok) return false;
      const leader = (await res.json()) as string;
      return leader !== '';
    },
    { what: () => `consul agent's leader at ${httpUrl}\n${output}` },
  );
  return {
    httpUrl,
    httpPort: http,
    grpcPort: grpc,
    node,
    output: () => output,
    async stop() {
      if (!gone) {
        child.kill('SIGTERM');
        await exited;
      }
      killTree(child);
      await dir.cleanup();
    },
  };
}
