// docs/envoy.md's per-transport commands, run as written: the quickstart block
// and the table of bootstrap lines are read from the doc, `xdshub` and `envoy`
// are put on PATH, and every line runs in bash against a real hub — only the
// ports are swapped for free ones (and the hub's addresses passed through
// XDSHUB_GRPC_ADDR / XDSHUB_HTTP_ADDR, which `xdshub envoy bootstrap` reads).
// Envoy itself is started from the envoy.json the doc's commands wrote, by
// the test helper (which moves its admin to a free port).

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { envoyBinary, startEnvoy } from '../helpers/envoy';
import { REPO_ROOT, spawnHub } from '../helpers/hub';
import { execFileTracked } from '../helpers/procs';
import { tmpDir } from '../helpers/tmp';
import { freePort, startBackend } from './harness';

const run = execFileTracked;
const doc = readFileSync(join(REPO_ROOT, 'docs', 'envoy.md'), 'utf8');

function section(marker: string): string {
  const at = doc.indexOf(`<!-- commands: ${marker} -->`);
  assert.ok(at >= 0, `docs/envoy.md has a "${marker}" block`);
  return doc.slice(at);
}

const QUICKSTART = /```sh\n([\s\S]*?)```/.exec(section('quickstart'))![1]!.trim().split('\n');
const ROWS = [
  ...section('transports')
    .split('\n\n')[0]!
    .matchAll(/^\| ([^|]+?) \| `(xdshub envoy bootstrap [^`]+)` \|$/gm),
].map((m) => ({ transport: m[1]!, bootstrap: m[2]! }));

const cleanups: (() => Promise<unknown>)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

test('docs/envoy.md lists a bootstrap line for each of the five transports', () => {
  assert.deepEqual(
    ROWS.map((r) => r.transport),
    ['Delta ADS', 'SotW ADS', 'per-type Delta gRPC', 'per-type SotW gRPC', 'REST polling'],
  );
  assert.ok(
    QUICKSTART.some((l) => l.startsWith('BOOTSTRAP > envoy.json')) &&
      QUICKSTART.some((l) => l.startsWith('envoy -c envoy.json')),
  );
});

for (const row of ROWS) {
  test(`docs/envoy.md commands, ${row.transport}: the request through Envoy reaches the backend`, async () => {
    const dir = await tmpDir('xdshub-docs');
    cleanups.push(() => dir.cleanup());
    // `xdshub` and `envoy` on PATH, as a user has them.
    const bin = join(dir.path, 'bin');
    execFileSync('mkdir', ['-p', bin]);
    // (tsx resolves from the repository; the caller's redirections happen in the caller's directory.)
    writeFileSync(
      join(bin, 'xdshub'),
      `#!/bin/sh\ncd "${REPO_ROOT}" && exec "${process.execPath}" --import tsx src/cli/main.ts "$@"\n`,
    );
    chmodSync(join(bin, 'xdshub'), 0o755);
    symlinkSync(envoyBinary(), join(bin, 'envoy'));

    const hub = await spawnHub(['--store', 'memory', '--http-port', '0', '--grpc-port', '0']);
    cleanups.push(() => hub.stop('SIGTERM'));
    const backend = await startBackend('hello from web');
    cleanups.push(() => backend.close());
    const gateway = await freePort();
    const httpAddr = new URL(hub.httpUrl).host;
    const swap = (line: string) =>
      line
        .replaceAll('localhost:8500', httpAddr)
        .replaceAll('"Port":9090', `"Port":${backend.port}`)
        .replaceAll('"Port":8080', `"Port":${gateway}`)
        .replaceAll('localhost:8080', `127.0.0.1:${gateway}`)
        .replace('BOOTSTRAP', row.bootstrap);
    const env = {
      ...process.env,
      PATH: `${bin}:${process.env['PATH']}`,
      XDSHUB_GRPC_ADDR: hub.grpcAddress,
      XDSHUB_HTTP_ADDR: httpAddr,
    };
    // Asynchronous: the backend lives in this process and must answer while curl waits.
    const sh = async (line: string) =>
      (await run('bash', ['-c', swap(line)], { cwd: dir.path, env, encoding: 'utf8' })).stdout;

    const [last, ...rest] = [...QUICKSTART].reverse();
    for (const line of rest.reverse()) {
      if (line.startsWith('envoy -c envoy.json')) {
        const envoy = await startEnvoy({ bootstrap: JSON.parse(readFileSync(join(dir.path, 'envoy.json'), 'utf8')) });
        cleanups.push(() => envoy.stop());
        let answer = '';
        await envoy.until(
          async () => (answer = (await sh(last!)).trim()) === 'hello from web',
          () =>
            `${swap(last!)} answered by the backend (last answer: ${JSON.stringify(answer)}; envoy.json: ${readFileSync(join(dir.path, 'envoy.json'), 'utf8').slice(0, 1500)})`,
        );
        const clients = (await (await fetch(`${hub.httpUrl}/v1/xds/clients`)).json()) as {
          node: { id: string } | null;
        }[];
        if (!row.transport.startsWith('REST'))
          assert.ok(
            clients.some((c) => c.node?.id === 'edge-1'),
            'the Envoy shows in /v1/xds/clients',
          );
        assert.equal((await envoy.rejectedUpdates()).total, 0);
      } else {
        await sh(line);
      }
    }
  });
}
