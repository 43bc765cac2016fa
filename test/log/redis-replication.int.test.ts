// The Redis log against real redis-servers set up as users run them: a replica and
// Redis WAIT (--redis-wait-replicas), a log that lost entries under its readers
// (what a failover to a replica that had not received them looks like), TLS with
// the hub's own CA file, and a password.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import Redis from 'ioredis';
import pino from 'pino';
import { createCatalog } from '../../src/catalog/store';
import { isHubError } from '../../src/errors';
import { openLog } from '../../src/log/index';
import type { LogEntry } from '../../src/log/log';
import { createRedisLog } from '../../src/log/redis';
import { redisConnection } from '../../src/log/redis-target';
import { register, serviceInput } from '../catalog/fixtures';
import { startRedis } from '../helpers/redis';
import { startProxy } from '../helpers/tcp-proxy';
import { tmpDir } from '../helpers/tmp';

const logger = pino({ level: 'silent' });

test('--redis-wait-replicas 1: acknowledged once a replica holds the entry; with no replica, 503 saying so (the entry still takes effect)', async () => {
  const primary = await startRedis();
  const replica = await startRedis({ replicaOf: primary.port });
  const log = createRedisLog({ url: primary.url, waitReplicas: 1 });
  const onReplica = new Redis(replica.url);
  try {
    assert.deepEqual(await log.append(['kept']), [1n]);
    // WAIT returned 1: the replica has it now, without waiting for anything else.
    assert.deepEqual(await onReplica.xrange('xdshub:{log}:stream', '-', '+'), [['1-1', ['p', 'kept']]]);
    onReplica.disconnect();
    await replica.stop();
    await assert.rejects(log.append(['unconfirmed']), (err) => {
      assert.ok(isHubError(err, 'LOG_OUTCOME_UNKNOWN'), String(err));
      assert.match(
        err.message,
        /reached the primary but 0 of 1 replicas confirmed it within 2000 ms; it may still take effect/,
      );
      return true;
    });
    assert.deepEqual(
      (await log.read(1n)).map((e) => e.payload),
      ['kept', 'unconfirmed'],
      'in the primary: every hub applies it',
    );
  } finally {
    onReplica.disconnect();
    await log.close();
    await replica.stop();
    await primary.stop();
  }
});

/**
 * Makes the server forget the last `n` entries without the clients noticing: the
 * stream as a replica that had not received them would have it after a failover.
 */
async function loseTail(admin: Redis, prefix: string, n: number): Promise<void> {
  const stream = `${prefix}stream`;
  const kept = await admin.xrange(stream, '-', '+');
  kept.splice(kept.length - n, n);
  await admin.del(stream);
  for (const [id, fields] of kept) await admin.xadd(stream, id, ...fields);
  await admin.set(`${prefix}last`, String(kept.length === 0 ? 0 : kept[kept.length - 1]![0].split('-')[0]));
}

test('a tail whose log lost entries it handed out (a failover) says LOG_REWOUND after the reconnect, instead of carrying on', async () => {
  const redis = await startRedis();
  const proxy = await startProxy(redis.port);
  const prefix = `rewind:{${randomUUID()}}:`;
  // The writers' appends are not what times out here: a generous write timeout, so a
  // process starved for 2 s on a loaded machine still gets its LOG_REWOUND, not a 503.
  const writer = createRedisLog({ url: redis.url, keyPrefix: prefix, writeTimeoutMs: 30_000 });
  const other = createRedisLog({ url: redis.url, keyPrefix: prefix, writeTimeoutMs: 30_000 });
  const reader = createRedisLog({ url: `redis://127.0.0.1:${proxy.port}`, keyPrefix: prefix });
  const admin = new Redis(redis.url);
  const ac = new AbortController();
  try {
    await writer.append(['a', 'b', 'c']);
    const got: LogEntry[] = [];
    const it = reader.tail(1n, ac.signal)[Symbol.asyncIterator]();
    for (let i = 0; i < 3; i++) got.push((await it.next()).value as LogEntry);
    const waiting = it.next(); // caught up: blocked in XREAD
    proxy.mode('refuse');
    proxy.cut();
    await loseTail(admin, prefix, 2); // 'b' and 'c' are gone ...
    // ... and their indexes now name other entries. The writer had seen index 3, so it
    // notices at once that its append landed below it (the entry is in the log all the same).
    await assert.rejects(writer.append(['B']), (err) => {
      assert.ok(isHubError(err, 'LOG_REWOUND'), String(err));
      assert.match(
        err.message,
        /the write landed at index 2, but this hub had seen 3: the log lost entries in a failover/,
      );
      return true;
    });
    await other.append(['C', 'D']); // another hub, which had seen nothing, appends as usual
    proxy.mode('pass');
    await assert.rejects(waiting, (err) => {
      assert.ok(isHubError(err, 'LOG_REWOUND'), String(err));
      assert.match(err.message, /entry 3, already applied here, is no longer in the log/);
      return true;
    });
    assert.deepEqual(
      got.map((e) => e.payload),
      ['a', 'b', 'c'],
    );
  } finally {
    ac.abort();
    admin.disconnect();
    await writer.close();
    await other.close();
    await reader.close();
    await proxy.close();
    await redis.stop();
  }
});

test('a catalog whose log lost entries it had applied rebuilds its state from the log, resets its subscribers, and follows on', async () => {
  const redis = await startRedis();
  const proxy = await startProxy(redis.port);
  const prefix = `rebuild:{${randomUUID()}}:`;
  const writer = createRedisLog({ url: redis.url, keyPrefix: prefix });
  const logA = createRedisLog({ url: `redis://127.0.0.1:${proxy.port}`, keyPrefix: prefix });
  const admin = new Redis(redis.url);
  const a = await createCatalog({ log: logA, logger });
  const resets: bigint[] = [];
  a.onReset((index) => resets.push(index));
  try {
    for (let i = 0; i < 4; i++) await a.submit(register(`n${i}`, { service: serviceInput(`s${i}`, 'web') }));
    const had = a.lastIndex();
    proxy.mode('refuse');
    proxy.cut();
    await loseTail(admin, prefix, 2); // n2 and n3 are gone
    await writer.append([JSON.stringify(register('m0', { service: serviceInput('t0', 'web') }))]);
    const rebuilt = new Promise<bigint>((resolve) => a.onReset(resolve));
    proxy.mode('pass');
    assert.equal(await rebuilt, had - 1n, 'reset at the index the log now ends at');
    assert.deepEqual(
      a.serviceInstances('web').value.map((i) => i.Node.Node),
      ['m0', 'n0', 'n1'],
    );
    const fresh = await createCatalog({ log: writer, logger });
    try {
      assert.equal(
        a.snapshot().state,
        fresh.snapshot().state,
        'the same state as a catalog reading the log from scratch',
      );
      const next = await a.submit(register('n9', { service: serviceInput('s9', 'web') }));
      await fresh.waitForIndex(next.index - 1n);
      assert.equal(a.snapshot().state, fresh.snapshot().state, 'and it follows the log again');
    } finally {
      await fresh.close();
    }
    assert.deepEqual(resets, [had - 1n]);
  } finally {
    await a.close();
    admin.disconnect();
    await writer.close();
    await logA.close();
    await proxy.close();
    await redis.stop();
  }
});

/** A CA and a server certificate for 127.0.0.1, made with the openssl command line. */
function makeCertificates(dir: string): { ca: string; cert: string; key: string } {
  const f = (name: string) => join(dir, name);
  const run = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  run(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    f('ca.key'),
    '-out',
    f('ca.pem'),
    '-days',
    '1',
    '-subj',
    '/CN=xdshub test CA',
  );
  run(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    f('server.key'),
    '-out',
    f('server.csr'),
    '-subj',
    '/CN=127.0.0.1',
  );
  writeFileSync(f('ext.cnf'), 'subjectAltName=IP:127.0.0.1\n');
  run(
    'x509',
    '-req',
    '-in',
    f('server.csr'),
    '-CA',
    f('ca.pem'),
    '-CAkey',
    f('ca.key'),
    '-CAcreateserial',
    '-out',
    f('server.pem'),
    '-days',
    '1',
    '-extfile',
    f('ext.cnf'),
  );
  return { ca: f('ca.pem'), cert: f('server.pem'), key: f('server.key') };
}

test('rediss:// with --redis-tls-ca reaches a TLS-only Redis; without the CA the hub refuses to start, naming the log', async () => {
  const dir = await tmpDir('xdshub-redis-tls');
  const certs = makeCertificates(dir.path);
  const redis = await startRedis({ tls: certs });
  try {
    assert.match(redis.url, /^rediss:/);
    const log = await openLog({ kind: 'redis', url: redis.url }, '', undefined, {
      waitReplicas: 0,
      tlsCaFile: certs.ca,
    });
    assert.deepEqual(await log.append(['over tls']), [1n]);
    assert.deepEqual(
      (await log.read(1n)).map((e) => e.payload),
      ['over tls'],
    );
    await log.close();
    await assert.rejects(openLog({ kind: 'redis', url: redis.url }, ''), (err) => {
      assert.ok(isHubError(err, 'INTERNAL'), String(err));
      assert.match(err.message, /^cannot reach redis log rediss:\/\/127\.0\.0\.1:\d+: .*(certificate|self.signed)/i);
      return true;
    });
    assert.throws(
      () => redisConnection(redis.url, { waitReplicas: 0, tlsCaFile: join(dir.path, 'missing.pem') }),
      /redis-tls-ca: cannot read/,
    );
  } finally {
    await redis.stop();
    await dir.cleanup();
  }
});

test('a password from --redis-password (or the URL) is used, and never shown in messages', async () => {
  const redis = await startRedis({ password: 's3cret' });
  const bare = redis.url.replace(/\/\/[^@]*@/, '//');
  try {
    const log = await openLog({ kind: 'redis', url: bare }, '', undefined, { waitReplicas: 0, password: 's3cret' });
    assert.deepEqual(await log.append(['with password']), [1n]);
    await log.close();
    const fromUrl = await openLog({ kind: 'redis', url: redis.url }, '');
    assert.deepEqual(await fromUrl.append(['from url']), [2n]);
    await fromUrl.close();
    await assert.rejects(openLog({ kind: 'redis', url: redis.url.replace('s3cret', 'wrong') }, ''), (err) => {
      assert.ok(isHubError(err), String(err));
      assert.match(
        err.message,
        /cannot reach redis log redis:\/\/:\*\*\*@127\.0\.0\.1:\d+: .*(WRONGPASS|invalid password)/,
      );
      assert.doesNotMatch(err.message, /wrong|s3cret/);
      return true;
    });
  } finally {
    await redis.stop();
  }
});
