// openLog: StoreConfig → the right store, with the file where the docs say.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { isHubError } from '../../src/errors';
import { openLog } from '../../src/log/index';
import { startRedis } from '../helpers/redis';
import { tmpDir } from '../helpers/tmp';

test('openLog memory', async () => {
  const log = await openLog({ kind: 'memory' }, '/nonexistent');
  assert.equal(log.kind, 'memory');
  assert.deepEqual(await log.append(['a']), [1n]);
  await log.close();
});

test('openLog sqlite creates <dataDir>/xdshub.db, making the directory', async () => {
  const dir = await tmpDir('xdshub-open');
  const dataDir = join(dir.path, 'data');
  try {
    const log = await openLog({ kind: 'sqlite' }, dataDir);
    assert.equal(log.kind, 'sqlite');
    await log.append(['a']);
    await log.close();
    assert.ok(existsSync(join(dataDir, 'xdshub.db')));
    const again = await openLog({ kind: 'sqlite' }, dataDir);
    assert.deepEqual(await again.append(['b']), [2n]);
    await again.close();
  } finally {
    await dir.cleanup();
  }
});

test('openLog redis connects to the url', async () => {
  const redis = await startRedis();
  try {
    const log = await openLog({ kind: 'redis', url: redis.url }, '/unused');
    assert.equal(log.kind, 'redis');
    assert.deepEqual(await log.append(['a']), [1n]);
    await log.close();
  } finally {
    await redis.stop();
  }
});

test('openLog redis without a url is a clear config error', async () => {
  await assert.rejects(
    openLog({ kind: 'redis' }, '/unused'),
    (err) => isHubError(err, 'INVALID_ARGUMENT') && err.field === 'store',
  );
});

test('openLog redis fails fast with a clear error when nothing listens', async () => {
  const redis = await startRedis();
  await redis.stop(); // a port that was just free and is closed again
  await assert.rejects(
    openLog({ kind: 'redis', url: redis.url }, '/unused'),
    (err) => isHubError(err, 'INTERNAL') && /cannot reach redis/.test(err.message) && /ECONNREFUSED/.test(err.message),
  );
});
