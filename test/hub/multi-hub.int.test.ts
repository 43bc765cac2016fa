// Several whole hub processes (`xdshub serve --store redis://…`) on one real
// redis-server: what one hub acknowledges, the others serve (HTTP reads, blocking
// queries, Subscribe, xDS to a real grpc-js-xds client); a Delta client moved
// from one hub to the other resumes without a resend; a hub SIGKILLed under
// writes comes back with everything; a Redis outage is ridden out with reads and
// xDS served and writes refused; a hub that slept through compactions catches up
// from the snapshot. The cases run side by side, each on its own Redis.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import Redis from 'ioredis';
import { TypeUrl } from '../../src/xds/transport/type-urls';
import { type SpawnedHub, spawnHub } from '../helpers/hub';
import { type RunningRedis, startRedis } from '../helpers/redis';
import { startProxy } from '../helpers/tcp-proxy';
import { tmpDir } from '../helpers/tmp';
import { letTimePass, until } from '../helpers/until';
import { startWriters } from '../helpers/writers';
import { StreamReader, subscribeClient } from '../subscribe/grpc-helpers';
import { ECHO_METHOD, type EchoBackend, startEcho } from '../xds/e2e/echo-backend';
import { type ClientProcess, startGrpcJsClient } from '../xds/e2e/harness';
import { ScriptedClient } from '../xds/transport/helpers/client';
import { DELTA_ADS } from '../xds/transport/helpers/harness';
import { DeltaScript, deltaVersions } from '../xds/transport/helpers/scripts';

async function http(
  url: string,
  method = 'GET',
  body?: unknown,
): Promise<{ status: number; json: any; text: string; index: bigint }> {
  const res = await fetch(url, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text, index: BigInt(res.headers.get('x-consul-index') ?? '0') };
}

const registerEcho = (hub: SpawnedHub, echo: EchoBackend) =>
  http(`${hub.httpUrl}/v1/catalog/register`, 'PUT', {
    Node: `node-${echo.name}`,
    Address: '127.0.0.1',
    Service: { Service: 'echo', ID: echo.name, Port: echo.port },
  });

const grpcPort = (hub: SpawnedHub) => Number(hub.grpcAddress.split(':').pop());

async function nodes(hub: SpawnedHub): Promise<Set<string>> {
  const r = await http(`${hub.httpUrl}/v1/catalog/nodes`);
  assert.equal(r.status, 200, r.text);
  return new Set((r.json as Array<{ Node: string }>).map((n) => n.Node));
}

/** Asks `hub` until it has applied at least `index` (a blocking query on the whole catalog). */
async function caughtUp(hub: SpawnedHub, index: bigint): Promise<void> {
  for (let seen = 0n; seen < index; )
    seen = (await http(`${hub.httpUrl}/v1/catalog/nodes?index=${seen}&wait=5s`)).index;
}

interface Rig {
  redis: RunningRedis;
  hubs: SpawnedHub[];
  extra: Array<() => Promise<unknown>>;
}

async function withHubs(
  count: number,
  args: string[],
  body: (rig: Rig) => Promise<void>,
  redisOptions: Parameters<typeof startRedis>[0] = {},
) {
  const rig: Rig = { redis: await startRedis(redisOptions), hubs: [], extra: [] };
  try {
    for (let i = 0; i < count; i++)
      rig.hubs.push(
        await spawnHub([
          '--store',
          rig.redis.url,
          '--http-port',
          '0',
          '--grpc-port',
          '0',
          '--node-name',
          `hub-${i}`,
          ...args,
        ]),
      );
    await body(rig);
  } finally {
    for (const stop of rig.extra.reverse()) await stop();
    for (const h of rig.hubs) await h.stop('SIGKILL');
    await rig.redis.stop();
  }
}

describe('several hub processes on one Redis log', { concurrency: 2 }, () => {
  test('a write on hub A reaches hub B: the read, a blocking query, a Subscribe stream, a grpc-js-xds client; a Delta client moved from A to B gets no resend', () =>
    withHubs(2, [], async ({ hubs: [a, b], extra }) => {
      const e1 = await startEcho('e1');
      extra.push(() => e1.close());
      const before = await http(`${b!.httpUrl}/v1/health/service/echo`);
      assert.deepEqual(before.json, []);
      const blocking = http(`${b!.httpUrl}/v1/health/service/echo?index=${before.index}&wait=30s`);
      const sub = subscribeClient(b!.grpcAddress);
      extra.push(async () => sub.close());
      const stream = new StreamReader(
        sub.Subscribe({ Topic: 'ServiceHealth', NamedSubject: { Key: 'echo' } } as never),
      );
      assert.equal((await stream.next()).EndOfSnapshot, true);
      const xds: ClientProcess = startGrpcJsClient(grpcPort(b!), 'xds:///echo', ECHO_METHOD);
      extra.push(() => xds.stop());

      const written = await registerEcho(a!, e1);
      assert.equal(written.status, 200, written.text);
      const woke = await blocking;
      assert.ok(woke.index >= written.index, 'the blocking query on B woke with the write');
      assert.deepEqual(
        woke.json.map((i: any) => i.Service.ID),
        ['e1'],
      );
      const event = await stream.next();
      assert.equal(event.ServiceHealth?.Op, 'Register');
      assert.equal(event.ServiceHealth?.CheckServiceNode?.Service?.ID, 'e1');
      assert.equal(BigInt(event.Index), written.index, 'the same index on B as on A');
      await xds.untilServing('e1');
      stream.call.cancel();

      // Delta: what a client holds from A is what B would send: B sends nothing again.
      const fromA = new DeltaScript(
        new ScriptedClient({ port: grpcPort(a!), path: DELTA_ADS, kind: 'delta' }),
        'mover',
      );
      fromA.send(TypeUrl.Cluster, ['*']);
      const clusters = await fromA.expect(TypeUrl.Cluster);
      const heldClusters = deltaVersions(clusters);
      assert.ok(Object.keys(heldClusters).length > 0, 'A sent the echo cluster');
      fromA.ack(clusters);
      fromA.send(TypeUrl.ClusterLoadAssignment, Object.keys(heldClusters));
      const endpoints = await fromA.expect(TypeUrl.ClusterLoadAssignment);
      const heldEndpoints = deltaVersions(endpoints);
      fromA.client.close();
      const onB = new DeltaScript(new ScriptedClient({ port: grpcPort(b!), path: DELTA_ADS, kind: 'delta' }), 'mover');
      extra.push(async () => onB.client.close());
      onB.send(TypeUrl.Cluster, ['*'], [], { initialResourceVersions: heldClusters });
      const again = await onB.expect(TypeUrl.Cluster);
      assert.deepEqual(again.resources, [], 'B resends no cluster the client holds at the same version');
      onB.ack(again);
      onB.send(TypeUrl.ClusterLoadAssignment, Object.keys(heldEndpoints), [], {
        initialResourceVersions: heldEndpoints,
      });
      await onB.quiet();
      // A change made on A now reaches the moved client on B as a delta.
      const e2 = await startEcho('e2');
      extra.push(() => e2.close());
      assert.equal((await registerEcho(a!, e2)).status, 200);
      const changed = await onB.expect(TypeUrl.ClusterLoadAssignment);
      assert.deepEqual(Object.keys(deltaVersions(changed)), Object.keys(heldEndpoints));
      await xds.untilServing(['e1', 'e2']);
    }));

  test('a hub SIGKILLed during 2,000 writes spread over both: after its restart, both hubs hold every acknowledged write', () =>
    withHubs(2, [], async ({ redis, hubs }) => {
      const writers = startWriters({ urls: hubs.map((h) => h.httpUrl), workers: 8, prefix: 'k' });
      try {
        await writers.until((o) => o.filter((x) => x.status === 200).length >= 1_000);
        await hubs[0]!.stop('SIGKILL');
        await writers.until((o) => o.filter((x) => x.status === 200).length >= 2_000);
      } finally {
        await writers.stop();
      }
      hubs[0] = await spawnHub(['--store', redis.url, '--http-port', '0', '--grpc-port', '0', '--node-name', 'hub-0']);
      const acked = writers.acked();
      // biome-ignore lint/complexity/useMathMinMax: the indexes are bigints, which Math.max does not take
      const last = acked.reduce((m, o) => (o.index! > m ? o.index! : m), 0n);
      for (const hub of hubs) {
        await caughtUp(hub, last);
        const present = await nodes(hub);
        const missing = acked.filter((o) => !present.has(o.node)).length;
        assert.equal(missing, 0, `${missing} of ${acked.length} acknowledged writes missing on ${hub.httpUrl}`);
      }
      const refused = writers.outcomes.filter((o) => o.status !== 200 && o.status !== 'error');
      assert.deepEqual(
        refused.map((o) => `${o.status} ${o.body}`),
        [],
        'the surviving hub answered every write',
      );
    }));

  test('Redis down for 10 s: writes 503 naming the log, no leader, reads and xDS served throughout; then everything resumes with no restart', async () => {
    const dir = await tmpDir('xdshub-multi-outage');
    try {
      await withHubs(
        2,
        [],
        async (rig) => {
          const [a, b] = rig.hubs;
          const e1 = await startEcho('e1');
          rig.extra.push(() => e1.close());
          assert.equal((await registerEcho(a!, e1)).status, 200);
          const xds = startGrpcJsClient(grpcPort(b!), 'xds:///echo', ECHO_METHOD);
          rig.extra.push(() => xds.stop());
          await xds.untilServing('e1');
          assert.match((await http(`${a!.httpUrl}/v1/status/leader`)).json, /^127\.0\.0\.1:\d+$/);

          await rig.redis.stop();
          const downAt = Date.now();
          const servedBefore = e1.served();
          // While it lasts: every probe round reads on both hubs and writes on both.
          let rounds = 0;
          while (Date.now() - downAt < 10_000) {
            for (const hub of [a!, b!]) {
              const read = await http(`${hub.httpUrl}/v1/health/service/echo`);
              assert.equal(read.status, 200, read.text);
              assert.deepEqual(
                read.json.map((i: any) => i.Service.ID),
                ['e1'],
              );
              const write = await http(`${hub.httpUrl}/v1/catalog/register`, 'PUT', {
                Node: `down-${rounds}`,
                Address: '10.0.0.9',
              });
              if (Date.now() - downAt > 2_500) {
                // Past the write timeout, nothing is in flight any more: every write is refused.
                assert.equal(write.status, 503, write.text);
                assert.match(write.text, /^redis log redis:\/\/127\.0\.0\.1:\d+ is unavailable/);
                assert.equal(
                  (await http(`${hub.httpUrl}/v1/status/leader`)).json,
                  '',
                  'no leader while the log is unreachable',
                );
              }
            }
            rounds++;
            await letTimePass(250, 'the outage lasts 10 s; it is probed a few times a second');
          }
          assert.ok(e1.served() > servedBefore, 'xDS kept the client routing through the outage');
          await xds.untilServing('e1', 8, 10_000);

          rig.redis = await startRedis({ appendonly: true, dir: dir.path, port: rig.redis.port });
          for (const hub of [a!, b!]) {
            const register = () =>
              http(`${hub.httpUrl}/v1/catalog/register`, 'PUT', { Node: `after-${hub.httpUrl}`, Address: '10.0.0.9' });
            const write = await until(
              async () => {
                const w = await register();
                return w.status !== 503 && w;
              },
              { what: 'a write not refused with 503', interval: 100 },
            );
            assert.equal(write.status, 200, `writes resume by themselves: ${write.text}`);
            assert.match((await http(`${hub.httpUrl}/v1/status/leader`)).json, /^127\.0\.0\.1:\d+$/);
          }
        },
        { appendonly: true, dir: dir.path },
      );
    } finally {
      await dir.cleanup();
    }
  });

  test('a hub that slept through compactions by the other (SIGSTOP) loads the snapshot and converges', () =>
    withHubs(2, ['--compact-every', '40', '--compact-keep-tail', '0'], async ({ redis, hubs: [a, b] }) => {
      assert.equal(
        (await http(`${a!.httpUrl}/v1/catalog/register`, 'PUT', { Node: 'first', Address: '10.0.0.1' })).status,
        200,
      );
      await caughtUp(b!, (await http(`${a!.httpUrl}/v1/catalog/nodes`)).index);
      b!.child.kill('SIGSTOP');
      let last = 0n;
      try {
        for (let i = 0; i < 150; i++) {
          const r = await http(`${a!.httpUrl}/v1/catalog/register`, 'PUT', {
            Node: `while-asleep-${i}`,
            Address: '10.0.0.2',
          });
          assert.equal(r.status, 200, r.text);
          last = r.index;
        }
      } finally {
        b!.child.kill('SIGCONT');
      }
      const admin = new Redis(redis.url);
      try {
        assert.ok(
          Number((await admin.xrange('xdshub:{log}:stream', '-', '+', 'COUNT', 1))[0]?.[0].split('-')[0] ?? last) > 2,
          'the log was compacted past what B had read',
        );
      } finally {
        admin.disconnect();
      }
      await caughtUp(b!, last);
      assert.deepEqual([...(await nodes(b!))].sort(), [...(await nodes(a!))].sort());
      assert.match(b!.stderr(), /log compacted past this catalog; restoring its snapshot/);
    }));
  test('a blocking query with the index hub A gave waits on hub B, behind on the same log, instead of answering a lower index; an index beyond the log answers at once', () =>
    withHubs(1, [], async ({ redis, hubs, extra }) => {
      const a = hubs[0]!;
      // B reaches Redis through a proxy that can slow its replies, so B falls behind A on demand.
      const link = await startProxy(redis.port);
      extra.push(() => link.close());
      const b = await spawnHub([
        '--store',
        `redis://127.0.0.1:${link.port}`,
        '--http-port',
        '0',
        '--grpc-port',
        '0',
        '--node-name',
        'hub-b',
      ]);
      hubs.push(b);
      const register = async (name: string) => {
        const r = await http(`${a.httpUrl}/v1/catalog/register`, 'PUT', {
          Node: `node-${name}`,
          Address: '127.0.0.1',
          Service: { Service: 'echo', ID: name, Port: 9 },
        });
        assert.equal(r.status, 200, r.text);
        return r.index;
      };
      await caughtUp(b, await register('e1'));
      // Under the hubs' 2 s write timeout, which also bounds B's ask of the log's newest index.
      link.delayReplies(1_500);
      const held = await register('e2');
      // A client that read `held` from A and is moved to B: B has not applied it yet.
      const view = http(`${b.httpUrl}/v1/health/service/echo?index=${held}&wait=60s`);
      const table = http(`${b.httpUrl}/v1/catalog/nodes?index=${held}&wait=60s`);
      // A filtered read waits for what passes the filter to change: B's own next change (e2, which the client has) must not end it.
      const filtered = http(
        `${b.httpUrl}/v1/health/service/echo?filter=${encodeURIComponent('Service.Port == 9')}&index=${held}&wait=60s`,
      );
      // (Were the machine to stall 1.5 s here, B would hold `held` already and the reads would take the ordinary path: they pass, testing less.)
      const next = await register('e3');
      const [fromView, fromTable, fromFiltered] = await Promise.all([view, table, filtered]);
      assert.equal(fromView.status, 200, fromView.text);
      assert.ok(
        fromView.index > held,
        `the view read answered ${fromView.index}, not past the client's ${held}: a Consul client would reset and read everything again`,
      );
      assert.equal(fromView.index, next, "it answered with the first change to echo after the client's index");
      assert.deepEqual(fromView.json.map((i: any) => i.Service.ID).sort(), ['e1', 'e2', 'e3']);
      assert.equal(fromTable.status, 200, fromTable.text);
      assert.ok(fromTable.index > held, `the catalog read answered ${fromTable.index}, not past the client's ${held}`);
      assert.ok(fromTable.json.some((n: any) => n.Node === 'node-e3'));
      assert.equal(fromFiltered.status, 200, fromFiltered.text);
      assert.equal(
        fromFiltered.index,
        next,
        `the filtered read answered ${fromFiltered.index}, not the first change past the client's ${held}`,
      );
      assert.deepEqual(fromFiltered.json.map((i: any) => i.Service.ID).sort(), ['e1', 'e2', 'e3']);

      // An index the log never reached (another log's: a memory-store hub that restarted) still answers at once, lower, so the client resets.
      link.delayReplies(0);
      await caughtUp(b, next);
      const beyond = next + 1_000n;
      for (const path of ['/v1/health/service/echo', '/v1/catalog/nodes']) {
        const res = await fetch(`${b.httpUrl}${path}?index=${beyond}&wait=10m`, {
          signal: AbortSignal.timeout(120_000),
        });
        assert.equal(res.status, 200, path);
        assert.equal(BigInt(res.headers.get('x-consul-index') ?? '0'), next, `${path} answered with B's own index`);
      }
    }));
});
