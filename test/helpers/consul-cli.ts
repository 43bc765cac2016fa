// The real `consul` CLI (HashiCorp Consul v1.16.1, MPL-2.0), as
// scripts/ensure-consul-cli.sh builds it into .tmp/consul/. Tests drive it
// against a hub exactly as an operator would; a missing binary is an error
// saying how to build it, never a skip.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './hub';
import { type ExecResult, execFileTracked } from './procs';

export const CONSUL_CLI_VERSION = 'v1.16.1';

/** The CLI's path: $CONSUL_BIN, else the cached build under .tmp/consul/. Throws how to build it when missing. */
export function consulCli(): string {
  const fromEnv = process.env.CONSUL_BIN;
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`CONSUL_BIN=${fromEnv} does not exist`);
    return fromEnv;
  }
  const bin = join(REPO_ROOT, '.tmp', 'consul', `consul-${CONSUL_CLI_VERSION}`);
  if (!existsSync(bin))
    throw new Error(
      `the consul CLI ${CONSUL_CLI_VERSION} is not built (${bin} is missing): ` +
        'run bash scripts/ensure-consul-cli.sh (npm test runs it)',
    );
  return bin;
}

export interface ConsulTarget {
  /** host:port of the hub's HTTP API. */
  httpAddr: string;
  token?: string;
}

/**
 * Runs `consul ARGS` against the hub. The environment names only the hub (no
 * CONSUL_* from the caller's shell leaks in), so what runs is what an operator
 * with CONSUL_HTTP_ADDR set would run. Rejects on a non-zero exit with the output.
 */
export function runConsul(
  args: readonly string[],
  target: ConsulTarget,
  options: { cwd?: string; timeoutMs?: number } = {},
): Promise<ExecResult> {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('CONSUL_')) env[k] = v;
  env.CONSUL_HTTP_ADDR = `http://${target.httpAddr}`;
  if (target.token) env.CONSUL_HTTP_TOKEN = target.token;
  return execFileTracked(consulCli(), args, {
    env,
    ...(options.cwd ? { cwd: options.cwd } : {}),
    timeout: options.timeoutMs ?? 60_000,
  });
}
