// SQLite-only promises: an acknowledged append survives a SIGKILL of the writing
// process, and one file has one writer.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { isHubError } from '../../src/errors';
import { createSqliteLog } from '../../src/log/sqlite';
import { spawnTracked } from '../helpers/procs';
import { tmpDir } from '../helpers/tmp';

for (const synchronous of ['NORMAL', 'FULL'] as const) {
  test(`sqlite (${synchronous}): every acknowledged append survives SIGKILL`, async () => {
    const dir = await tmpDir('xdshub-sqlite-kill');
    const path = join(dir.path, 'xdshub.db');
    try {
      const child = spawnTracked(
        process.execPath,
        ['--import', 'tsx', join(__dirname, 'fixtures', 'sqlite-writer.ts'), path, synchronous],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      const exited = once(child, 'exit');
      const acked = new Map<bigint, string>();
      for await (const line of createInterface({ input: child.stdout })) {
        const [index, payload] = line.split(' ');
        acked.set(BigInt(index!), payload!);
        // Kill while 64 writers are mid-flight, with appends queued and uncommitted.
        if (acked.size === 3_000) child.kill('SIGKILL');
      }
      const [, signal] = await exited;
      assert.equal(signal, 'SIGKILL');
      assert.ok(acked.size >= 3_000);

      const log = createSqliteLog({ path, synchronous });
      try {
        const stored = new Map((await log.read(1n)).map((e) => [e.index, e.payload]));
        for (const [index, payload] of acked) assert.equal(stored.get(index), payload, `entry ${index}`);
        // Nothing is invented and nothing is skipped: indexes are 1..lastIndex.
        const last = await log.lastIndex();
        assert.equal(BigInt(stored.size), last);
        assert.deepEqual(await log.append(['after']), [last + 1n]);
      } finally {
        await log.close();
      }
    } finally {
      await dir.cleanup();
    }
  });
}

test('sqlite: a second writer on the same file is refused', async () => {
  const dir = await tmpDir('xdshub-sqlite-lock');
  const path = join(dir.path, 'xdshub.db');
  const log = createSqliteLog({ path });
  try {
    await log.append(['a']);
    assert.throws(
      () => createSqliteLog({ path }),
      (err) => isHubError(err, 'CONFLICT'),
    );
    assert.deepEqual(await log.append(['b']), [2n]);
  } finally {
    await log.close();
    await dir.cleanup();
  }
});

test('sqlite: an unknown synchronous level is rejected before touching the disk', async () => {
  assert.throws(
    () => createSqliteLog({ path: '/nonexistent/x.db', synchronous: 'OFF' as 'FULL' }),
    (err) => isHubError(err, 'INVALID_ARGUMENT') && err.field === 'synchronous',
  );
});
