// Where the real `consul` CLI (v1.16.1, MPL-2.0) the tests drive lives:
// scripts/ensure-consul-cli.sh builds it into .tmp/consul/ (npm test runs it).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './hub';

export const CONSUL_CLI_VERSION = 'v1.16.1';

/** The path of the consul binary; throws saying how to build it when it is missing. */
export function consulCli(): string {
  const path = join(REPO_ROOT, '.tmp', 'consul', `consul-${CONSUL_CLI_VERSION}`);
  if (!existsSync(path)) throw new Error(`${path} is missing: run bash scripts/ensure-consul-cli.sh`);
  return path;
}
