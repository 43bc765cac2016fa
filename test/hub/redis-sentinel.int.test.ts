// Redis high availability through Sentinel, with real processes: a primary, a
// replica and three redis-sentinel, two hub processes on
// redis-sentinel://…/mymaster under 8 concurrent writers. The replica loses its
// link for a second, then the primary is SIGKILLed:
// Sentinel promotes the replica, the hubs follow, writes resume (once the old
// primary is back as a replica: with --redis-wait-replicas 1 a primary alone cannot
// confirm anything). With WAIT, no acknowledged write is lost; without it, the test
// reports how many were (a failover can lose what the replica had not received)
// and checks that the hubs still converge on what the log now holds.
import assert from 'node:assert/strict';
import { describe, type TestContext, test } from 'node:test';
import Redis from 'ioredis';
import { call, type SpawnedHub, spawnHub, startHub } from '../helpers/hub';
import { type RunningRedis, type RunningSentinel, startRedis, startSentinel } from '../helpers/redis';
import { tmpDir } from '../helpers/tmp';
import { letTimePass, until as poll } from '../helpers/until';
import { startWriters, type WriteOutcome } from '../helpers/writers';

const MASTER = 'mymaster';

async function nodesOn(url: string): Promise<Set<string>> {
  const res = await fetch(`${url}/v1/catalog/nodes`);
  assert.equal(res.status, 200);
  return new Set(((await res.json()) as Array<{ Node: string }>).map((n) => n.Node));
}

/** Resolves with the new primary's port when the sentinels announce a failover. */
function switchMaster(sentinel: RunningSentinel): { next: Promise<number>; close(): void } {
  const sub = new Redis({ host: '127.0.0.1', port: sentinel.port });
  const next = new Promise<number>((resolve) => {
    sub.on('message', (_channel: string, message: string) => resolve(Number(message.split(' ')[4])));
  });
  void sub.subscribe('+switch-master');
  return { next, close: () => sub.disconnect() };
}

/** The primary's port as this sentinel sees it. */
async function masterPort(sentinel: RunningSentinel): Promise<number> {
  const client = new Redis({ host: '127.0.0.1', port: sentinel.port });
  try {
    const [, port] = (await client.call('SENTINEL', 'get-master-addr-by-name', MASTER)) as [string, string];
    return Number(port);
  } finally {
    client.disconnect();
  }
}

/** Asks until `check` holds (each ask is a round trip; a short pause between, as Sentinel works on its own clock). */
async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  await poll(check, { what, interval: 100 });
}

const ackedCount = (o: readonly WriteOutcome[], after = 0) =>
  o.filter((x) => x.status === 200 && x.started > after).length;

async function failover(t: TestContext, waitReplicas: number): Promise<void> {
  const dir = await tmpDir(`xdshub-sentinel-${waitReplicas}`);
  let primary: RunningRedis = await startRedis();
  const replica = await startRedis({ replicaOf: primary.port });
  const sentinels: RunningSentinel[] = [];
  const hubs: SpawnedHub[] = [];
  try {
    for (let i = 0; i < 3; i++)
      sentinels.push(await startSentinel({ masterName: MASTER, masterPort: primary.port, dir: dir.path }));
    const store = `redis-sentinel://${sentinels.map((s) => `127.0.0.1:${s.port}`).join(',')}/${MASTER}`;
    const args = [
      '--store',
      store,
      '--http-port',
      '0',
      '--grpc-port',
      '0',
      ...(waitReplicas ? ['--redis-wait-replicas', String(waitReplicas)] : []),
    ];
    for (let i = 0; i < 2; i++) hubs.push(await spawnHub([...args, '--node-name', `hub-${i}`]));
    const watch = switchMaster(sentinels[0]!);

    const writers = startWriters({
      urls: hubs.map((h) => h.httpUrl),
      workers: 8,
      prefix: `f${waitReplicas}`,
      timeoutMs: 20_000,
    });
    try {
      await writers.until((o) => ackedCount(o) >= 300);
      // The replica loses its link for a second (a wrong masterauth keeps it from
      // resyncing, as a network fault would); then the primary dies holding writes the
      // replica never received.
      const onReplica = new Redis(replica.url);
      const onPrimary = new Redis(primary.url);
      try {
        await onReplica.config('SET', 'masterauth', 'not-the-password');
        await onPrimary.client('KILL', 'TYPE', 'replica');
        onPrimary.disconnect();
        await letTimePass(1_000, 'writes land on the primary that the replica never receives');
        await primary.stop(); // SIGKILL
        await onReplica.config('SET', 'masterauth', '');
      } finally {
        onReplica.disconnect();
        onPrimary.disconnect();
      }
      const promoted = await watch.next;
      watch.close();
      assert.equal(promoted, replica.port, 'Sentinel promoted the replica');
      // Every sentinel knows the new primary before the old one comes back (empty): a
      // sentinel that still named it would send clients to an empty primary.
      await until(
        async () => (await Promise.all(sentinels.map((x) => masterPort(x)))).every((p) => p === replica.port),
        'all sentinels name the new primary',
      );
      // The old primary comes back, empty, as a replica of the new one (as an operator
      // or Sentinel itself would make it).
      primary = await startRedis({ port: primary.port, replicaOf: replica.port });
      const back = Date.now();
      await writers.until((o) => ackedCount(o, back) >= 100);
    } finally {
      await writers.stop();
    }
    const outcomes = writers.outcomes;
    const hung = outcomes.filter((o) => o.status === 'timeout' || o.status === 'error');
    assert.deepEqual(
      hung.map((o) => `${o.status} ${o.body}`),
      [],
      'every write was answered',
    );
    for (const o of outcomes) {
      // Refused while Redis was unreachable, or caught in the jump back of a failover that lost entries.
      if (o.status !== 200)
        assert.match(
          `${o.status} ${o.body}`,
          /^503 (redis log redis-sentinel:\/\/[^ ]+\/mymaster( is unavailable: |: the write landed)|the log lost entries in a failover|entry \d+ is at or below what this hub has applied)/,
        );
    }

    // What the log holds now, read by a fresh hub through the sentinels.
    const reader = await startHub({ store: { kind: 'redis', url: store } });
    let inLog: Set<string>;
    try {
      inLog = new Set(
        ((await call(reader, 'GET', '/v1/catalog/nodes')).json as Array<{ Node: string }>).map((n) => n.Node),
      );
    } finally {
      await reader.close();
    }
    const acked = outcomes.filter((o) => o.status === 200);
    const lost = acked.filter((o) => !inLog.has(o.node));
    t.diagnostic(
      `--redis-wait-replicas ${waitReplicas}: ${acked.length} writes acknowledged, ${lost.length} lost in the failover, ${outcomes.length - acked.length} answered 503`,
    );
    if (waitReplicas > 0)
      assert.deepEqual(
        lost.map((o) => o.node),
        [],
        'no acknowledged write lost',
      );
    // Both hubs converge on the log as it is now (a hub that had applied lost entries rebuilt its state).
    // Just after the failover the rejoined replica may still be resyncing, so a WAIT
    // can fall short and the write answer 503 ("may still take effect"); the write is
    // idempotent, so it is asked again until it is acknowledged.
    let refusals = '';
    const last = await poll(
      async () => {
        const res = await fetch(`${hubs[0]!.httpUrl}/v1/catalog/register`, {
          method: 'PUT',
          body: JSON.stringify({ Node: 'marker', Address: '10.9.9.9' }),
        });
        if (res.status === 200) return res;
        const body = await res.text();
        assert.match(
          `${res.status} ${body}`,
          /^503 redis log .* (may still take effect|is unavailable)/,
          hubs[0]!.stderr().slice(-3000),
        );
        refusals += `${body}\n`;
        return undefined;
      },
      { what: () => `the marker write acknowledged (refused so far: ${refusals})`, interval: 200 },
    );
    const index = last.headers.get('x-consul-index');
    for (const hub of hubs) {
      await fetch(`${hub.httpUrl}/v1/catalog/nodes?index=${Number(index) - 1}&wait=10s`);
      const onHub = await nodesOn(hub.httpUrl);
      onHub.delete('marker');
      const extra = [...onHub].filter((n) => !inLog.has(n));
      const missing = [...inLog].filter((n) => !onHub.has(n));
      const statusOf = (n: string) => {
        const o = outcomes.find((x) => x.node === n);
        return `${n}:${o?.status}:${o?.body.slice(0, 60)}:${o ? o.started : ''}`;
      };
      assert.deepEqual(
        { extra: extra.map(statusOf), missing: missing.map(statusOf) },
        { extra: [], missing: [] },
        `${hub.httpUrl} holds what the log holds\n${hub
          .stderr()
          .split('\n')
          .filter((l) => /rebuilt|REWOUND|compacted/.test(l))
          .join('\n')
          .slice(0, 2000)}`,
      );
    }
  } finally {
    for (const h of hubs) await h.stop('SIGKILL');
    for (const s of sentinels) await s.stop();
    await replica.stop();
    await primary.stop();
    await dir.cleanup();
  }
}

describe('Sentinel failover under writes', { concurrency: true }, () => {
  test('with --redis-wait-replicas 1: the replica is promoted, hubs follow, writes resume, no acknowledged write lost', (t) =>
    failover(t, 1));
  test('without WAIT: the same, and the test reports what the failover lost; the hubs converge on the log', (t) =>
    failover(t, 0));
});
