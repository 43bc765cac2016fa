// Keys at rest (docs/security.md): a real `xdshub serve` under umask 022 and
// 000 makes its data directory 0700 and every file in it 0600 (the log, its
// WAL files, history.db and its WAL files), after writes that put the CA's
// keys and a leaf key in the log; a directory group or others may enter is
// refused with exit 2 naming it and its mode unless --data-dir-insecure-ok
// (flag, bare or =true, or XDSHUB_DATA_DIR_INSECURE_OK) says otherwise; a file
// left with a looser mode is made private when the hub opens the directory.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT, type SpawnedHub, spawnHub } from '../helpers/hub';
import { tmpDir } from '../helpers/tmp';

const mode = (path: string): string => `0${(statSync(path).mode & 0o777).toString(8)}`;
const flags = (dataDir: string): string[] => [
  '--data-dir',
  dataDir,
  '--http-port',
  '0',
  '--grpc-port',
  '0',
  '--node-name',
  'keys',
];
/** Runs node under `umask <u>` (exec keeps the hub the child the test signals). */
const underUmask = (u: string): string[] => ['sh', '-c', `umask ${u} && exec "$@"`, 'sh'];

function serveSync(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'src/cli/main.ts'), 'serve', ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, XDSHUB_LOG_LEVEL: 'warn', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
}

async function put(url: string, body: unknown): Promise<number> {
  const res = await fetch(url, {
    method: 'PUT',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
  await res.arrayBuffer();
  return res.status;
}

/** Writes that reach both files: registrations, a leaf certificate (its key goes to the log), and an xDS-history read. */
async function write(hub: SpawnedHub): Promise<void> {
  for (let i = 0; i < 5; i++) {
    assert.equal(
      await put(`${hub.httpUrl}/v1/catalog/register`, {
        Node: `n${i}`,
        Address: '10.0.0.1',
        Service: { Service: 'web', ID: `web${i}`, Port: 80 },
      }),
      200,
    );
  }
  const leaf = await fetch(`${hub.httpUrl}/v1/agent/connect/ca/leaf/web`);
  assert.equal(leaf.status, 200, await leaf.text());
  const roots = (await (await fetch(`${hub.httpUrl}/v1/connect/ca/roots`)).json()) as { Roots: unknown[] };
  assert.ok(roots.Roots.length > 0);
}

for (const umask of ['022', '000']) {
  test(`umask ${umask}: the data dir is 0700 and every file in it 0600 while the hub runs and after it stops`, async () => {
    const tmp = await tmpDir(`keys-${umask}`);
    const dataDir = join(tmp.path, 'var', 'data'); // missing, parents too: the hub makes them
    const hub = await spawnHub(flags(dataDir), {}, { wrap: underUmask(umask) });
    try {
      await write(hub);
      const files = readdirSync(dataDir).sort();
      for (const f of ['xdshub.db', 'xdshub.db-wal', 'history.db', 'history.db-wal', 'history.db-shm'])
        assert.ok(files.includes(f), `${f} in ${files.join(', ')}`);
      assert.equal(mode(dataDir), '0700');
      for (const f of files) assert.equal(mode(join(dataDir, f)), '0600', `${f} (umask ${umask})`);
    } finally {
      assert.equal(await hub.stop('SIGTERM'), 0, hub.stderr());
    }
    for (const f of readdirSync(dataDir)) assert.equal(mode(join(dataDir, f)), '0600', `${f} after shutdown`);
    // Restarted under the same umask, on the files it left: still private.
    const again = await spawnHub(flags(dataDir), {}, { wrap: underUmask(umask) });
    try {
      await write(again);
      for (const f of readdirSync(dataDir)) assert.equal(mode(join(dataDir, f)), '0600', `${f} after a restart`);
    } finally {
      assert.equal(await again.stop('SIGTERM'), 0, again.stderr());
      await tmp.cleanup();
    }
  });
}

test('a data dir group or others may enter is refused (exit 2, naming it and its mode) unless --data-dir-insecure-ok', async () => {
  const tmp = await tmpDir('keys-open');
  const dataDir = join(tmp.path, 'open');
  mkdirSync(dataDir);
  chmodSync(dataDir, 0o755);
  try {
    const refused = serveSync(flags(dataDir));
    assert.equal(refused.status, 2, refused.stderr);
    assert.ok(refused.stderr.includes(`data-dir: ${dataDir} has mode 0755`), refused.stderr);
    assert.match(refused.stderr, /--data-dir-insecure-ok/);
    assert.deepEqual(readdirSync(dataDir), [], 'nothing was written to it');
    chmodSync(dataDir, 0o710); // enter only, for the group: still refused
    assert.equal(serveSync(flags(dataDir)).status, 2);
    chmodSync(dataDir, 0o755);

    // The bare flag, the =true form and the variable each let it start; files are still 0600.
    for (const [args, env] of [
      [['--data-dir-insecure-ok'], {}],
      [['--data-dir-insecure-ok=true'], {}],
      [[], { XDSHUB_DATA_DIR_INSECURE_OK: 'true' }],
    ] as const) {
      const hub = await spawnHub([...flags(dataDir), ...args], env, { wrap: underUmask('000') });
      try {
        await write(hub);
        assert.match(hub.stderr(), /data directory is open to group or others/);
        assert.equal(mode(dataDir), '0755', "the operator's choice is left alone");
        for (const f of readdirSync(dataDir)) assert.equal(mode(join(dataDir, f)), '0600', f);
      } finally {
        assert.equal(await hub.stop('SIGTERM'), 0, hub.stderr());
      }
    }
    assert.equal(serveSync([...flags(dataDir), '--data-dir-insecure-ok=false']).status, 2);
  } finally {
    await tmp.cleanup();
  }
});

test('files left with looser modes in an accepted data dir are made private at start (group and others bits only)', async () => {
  const tmp = await tmpDir('keys-loose');
  const dataDir = join(tmp.path, 'data');
  const first = await spawnHub(flags(dataDir));
  try {
    await write(first);
  } finally {
    assert.equal(await first.stop('SIGTERM'), 0, first.stderr());
  }
  chmodSync(join(dataDir, 'xdshub.db'), 0o644);
  chmodSync(join(dataDir, 'history.db'), 0o666);
  writeFileSync(join(dataDir, 'xdshub.db.copy'), 'a backup someone left here', { mode: 0o644 });
  chmodSync(join(dataDir, 'xdshub.db.copy'), 0o644);
  const hub = await spawnHub(flags(dataDir));
  try {
    await write(hub);
    for (const f of readdirSync(dataDir)) assert.equal(mode(join(dataDir, f)), '0600', f);
    assert.match(hub.stderr(), /made private/);
    assert.match(hub.stderr(), /xdshub\.db \(was 0644\)/);
  } finally {
    assert.equal(await hub.stop('SIGTERM'), 0, hub.stderr());
    await tmp.cleanup();
  }
});
