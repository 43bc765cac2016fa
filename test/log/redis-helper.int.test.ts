// The shared startRedis helper: other engineers' tests depend on it, so it has its own tests.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:net';
import { test } from 'node:test';
import Redis from 'ioredis';
import { startRedis } from '../helpers/redis';
import { tmpDir } from '../helpers/tmp';

test('startRedis serves PING on loopback without persistence, and stop() kills it', async () => {
  const redis = await startRedis();
  const client = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await client.connect();
    assert.equal(await client.ping(), 'PONG');
    assert.deepEqual(await client.config('GET', 'appendonly'), ['appendonly', 'no']);
    assert.deepEqual(await client.config('GET', 'save'), ['save', '']);
  } finally {
    client.disconnect();
    await redis.stop();
  }
  // The port no longer accepts connections once stop() resolved.
  const socket = connect(redis.port, '127.0.0.1');
  const [err] = (await once(socket, 'error')) as [NodeJS.ErrnoException];
  assert.equal(err.code, 'ECONNREFUSED');
});

test('startRedis with appendonly keeps data across a SIGKILL', async () => {
  const dir = await tmpDir('xdshub-redis-aof');
  try {
    const first = await startRedis({ appendonly: true, dir: dir.path });
    const a = new Redis(first.url);
    await a.set('k', 'v');
    a.disconnect();
    await first.stop();
    const second = await startRedis({ appendonly: true, dir: dir.path });
    const b = new Redis(second.url);
    try {
      assert.equal(await b.get('k'), 'v');
    } finally {
      b.disconnect();
      await second.stop();
    }
  } finally {
    await dir.cleanup();
  }
});
