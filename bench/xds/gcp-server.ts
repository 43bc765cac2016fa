// Bench server process, gcp mode: go-control-plane (bench/xds/gcp, built by
// scripts/ensure-go-control-plane.sh) as the peer the hub is measured against.
// This process only relays the bench's IPC commands to the Go server's stdin
// and its stdout lines back; every figure (CPU by getrusage, RSS, streams) is
// the Go process's own.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { ServerCommand, ServerReply } from './protocol';

// The repository's root, from bench/xds or from its compiled copy in dist/bench/xds.
const ROOT = join(__dirname, ...(__dirname.includes(join('dist', 'bench')) ? ['..', '..', '..'] : ['..', '..']));
const BINARY = join(ROOT, '.tmp', 'gcp', 'xds-bench-gcp');
const send = (m: ServerReply) => {
  if (process.connected) process.send!(m);
};
if (!existsSync(BINARY)) {
  console.error(`${BINARY} is missing: run bash scripts/ensure-go-control-plane.sh`);
  process.exit(1);
}
// --pin: the Go server (every thread it makes) on the server's cores.
const pin = process.env['XDS_BENCH_PIN_CPUS'];
const go = pin
  ? spawn('taskset', ['-c', pin, BINARY], { stdio: ['pipe', 'pipe', 'inherit'] })
  : spawn(BINARY, [], { stdio: ['pipe', 'pipe', 'inherit'] });
// The parent is gone (finished or failed): leave no orphan behind.
process.on('disconnect', () => {
  go.kill('SIGKILL');
  process.exit(0);
});
go.on('exit', (code) => process.exit(code ?? 1));
createInterface({ input: go.stdout! }).on('line', (line) => send(JSON.parse(line) as ServerReply));
process.on('message', (m: ServerCommand) => {
  if (m.cmd === 'churn-change') throw new Error('gcp mode has no churn phase (run it with --churn 0)');
  // The Go server's stats reading serves as the rounds' baseline too.
  go.stdin!.write(`${JSON.stringify(m.cmd === 'rounds-start' ? { cmd: 'stats' } : m)}\n`);
});
