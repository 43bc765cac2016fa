// A SQLite log the hub cannot write: a read-only (or immutable) database file
// refuses to start with a message naming it; a full disk answers 503 naming the
// file, never 500, and loses no acknowledged write. Real `xdshub serve`
// processes; the faults are real: a read-only file seen by a process that has no
// right to override permissions (a user namespace), and a 1 MiB tmpfs mounted
// in the hub's own mount namespace as its data directory.

import assert from 'node:assert/strict';
import { once } from 'node:events';
import { chmodSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { REPO_ROOT, spawnHub } from '../helpers/hub';
import { spawnTracked } from '../helpers/procs';
import { tmpDir } from '../helpers/tmp';

const dirs: Array<{ cleanup(): Promise<void> }> = [];
after(async () => {
  for (const d of dirs) await d.cleanup();
});

async function freshDir(prefix: string): Promise<string> {
  const d = await tmpDir(prefix);
  dirs.push(d);
  return d.path;
}

const flags = (dataDir: string) => [
  '--data-dir',
  dataDir,
  '--http-port',
  '0',
  '--grpc-port',
  '0',
  '--node-name',
  'hub-storage',
];

async function put(url: string, body: unknown): Promise<{ status: number; text: string }> {
  const res = await fetch(url, { method: 'PUT', body: JSON.stringify(body) });
  return { status: res.status, text: await res.text() };
}

test('a read-only database file: serve exits 1 at start with a message naming the file', async () => {
  const dataDir = await freshDir('xdshub-ro');
  const hub = await spawnHub(flags(dataDir));
  assert.equal((await put(`${hub.httpUrl}/v1/catalog/register`, { Node: 'n1', Address: '10.0.0.1' })).status, 200);
  assert.equal(await hub.stop('SIGTERM'), 0);
  const db = join(dataDir, 'xdshub.db');
  assert.ok(existsSync(db));
  chmodSync(db, 0o444);
  // In a user namespace without a uid mapping the process holds no capability
  // that overrides file permissions (root outside included), so 0444 is read-only for it.
  const child = spawnTracked(
    'unshare',
    ['--user', process.execPath, '--import', 'tsx', join(REPO_ROOT, 'src/cli/main.ts'), 'serve', ...flags(dataDir)],
    {
      cwd: REPO_ROOT,
      env: { ...process.env, XDSHUB_LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  const exited = once(child, 'exit') as Promise<[number | null]>;
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    out += d;
    // Started anyway (the fault this test guards against): stop it so the test fails instead of hanging.
    if (out.includes('xdshub listening')) child.kill('SIGKILL');
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const [code] = await exited;
  assert.equal(code, 1, `exit code; stdout: ${out}; stderr: ${err}`);
  assert.doesNotMatch(out, /xdshub listening/, 'it never started serving');
  assert.ok(err.includes(db), `the message names ${db}: ${err}`);
  assert.match(err, /cannot be written: it is read-only/);
});

test('a full disk: writes answer 503 naming the file (never 500), reads go on, no acknowledged write is lost', async () => {
  const dataDir = await freshDir('xdshub-full');
  const hub = await spawnHub(
    flags(dataDir),
    {},
    {
      // A 1 MiB tmpfs as the data directory, mounted in the hub's own user and mount namespaces.
      wrap: [
        'unshare',
        '--user',
        '--map-root-user',
        '--mount',
        'sh',
        '-c',
        'mount -t tmpfs -o size=1m,mode=0700 xdshub-test "$0" && exec "$@"',
        dataDir,
      ],
    },
  );
  try {
    const acknowledged: string[] = [];
    const pad = 'x'.repeat(500);
    const meta = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`k${i}`, pad])); // ~31 KB per write
    let refused: { status: number; text: string } | undefined;
    for (let i = 0; i < 200 && !refused; i++) {
      const res = await put(`${hub.httpUrl}/v1/catalog/register`, {
        Node: `n${i}`,
        Address: '10.0.0.1',
        NodeMeta: meta,
      });
      if (res.status === 200) acknowledged.push(`n${i}`);
      else refused = res;
    }
    assert.ok(refused, 'the disk filled up within 200 writes');
    assert.equal(refused.status, 503, refused.text);
    assert.ok(refused.text.includes(join(dataDir, 'xdshub.db')), `the message names the file: ${refused.text}`);
    assert.match(refused.text, /the disk is full \(SQLITE_FULL/);
    assert.ok(acknowledged.length > 5, `some writes fit first (${acknowledged.length})`);
    // Still full: the next write is refused the same way, and reads answer.
    const again = await put(`${hub.httpUrl}/v1/catalog/register`, {
      Node: 'late',
      Address: '10.0.0.2',
      NodeMeta: meta,
    });
    assert.equal(again.status, 503, again.text);
    const nodes = await fetch(`${hub.httpUrl}/v1/catalog/nodes`);
    assert.equal(nodes.status, 200);
    const names = ((await nodes.json()) as Array<{ Node: string }>).map((n) => n.Node);
    for (const name of acknowledged) assert.ok(names.includes(name), `acknowledged ${name} is there`);
  } finally {
    await hub.stop('SIGTERM');
  }
});
