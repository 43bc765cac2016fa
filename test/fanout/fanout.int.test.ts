// The fan-out tier as real processes over loopback (docs/fanout.md): a core hub
// (`xdshub serve`, SQLite log) and a fan-out hub (`xdshub serve --upstream …`)
// with no log. Proved by what real clients do: a proxyless @grpc/grpc-js-xds
// client of the fan-out hub moves its traffic when a write lands on the core
// hub; the `consul` npm client pointed at the fan-out hub registers and reads
// its write back; a Subscribe client of the fan-out hub gets the core hub's
// indexes; and the core hub killed and restarted under writes leaves the
// fan-out's xDS clients serving throughout, then converging to a later change.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import Consul from 'consul';
import { createViewStore } from '../../src/materializer/index';
import { grpcSource } from '../../src/materializer/sources/grpc';
import { type SpawnedHub, spawnHub } from '../helpers/hub';
import { tmpDir } from '../helpers/tmp';
import { until } from '../helpers/until';
import { ECHO_METHOD, type EchoBackend, startEcho } from '../xds/e2e/echo-backend';
import { type ClientProcess, startGrpcJsClient } from '../xds/e2e/harness';
import { decodeAny, node, type Plain, ScriptedClient } from '../xds/transport/helpers/client';
import { DELTA_ADS } from '../xds/transport/helpers/harness';

const CLA = 'type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment';
let dir: Awaited<ReturnType<typeof tmpDir>>;
let core: SpawnedHub;
let fanout: SpawnedHub;
let a: EchoBackend, b: EchoBackend, c: EchoBackend;
const port = (address: string) => Number(address.split(':').pop());

async function put(hub: SpawnedHub, path: string, body: unknown): Promise<bigint> {
  const res = await fetch(hub.httpUrl + path, { method: 'PUT', body: JSON.stringify(body) });
  assert.equal(res.status, 200, `${path}: ${await res.text()}`);
  return BigInt(res.headers.get('x-consul-index')!);
}

const register = (hub: SpawnedHub, name: string, backend: EchoBackend) =>
  put(hub, '/v1/catalog/register', {
    Node: `node-${name}`,
    Address: '127.0.0.1',
    Service: { Service: 'echo', ID: name, Port: backend.port, Address: '127.0.0.1' },
  });
const deregister = (hub: SpawnedHub, name: string) => put(hub, '/v1/catalog/deregister', { Node: `node-${name}` });

function startCore(extra: string[] = []): Promise<SpawnedHub> {
  return spawnHub([
    '--store',
    'sqlite',
    '--data-dir',
    dir.path,
    '--node-name',
    'core',
    '--xds-debounce',
    '10ms',
    '--xds-max-delay',
    '100ms',
    ...extra,
  ]);
}

before(async () => {
  dir = await tmpDir('fanout');
  [a, b, c] = await Promise.all([startEcho('a'), startEcho('b'), startEcho('c')]);
  core = await startCore(['--http-port', '0', '--grpc-port', '0']);
  fanout = await spawnHub([
    '--upstream',
    core.grpcAddress,
    '--upstream-http',
    core.httpUrl,
    '--http-port',
    '0',
    '--grpc-port',
    '0',
    '--node-name',
    'fanout',
    '--xds-debounce',
    '10ms',
    '--xds-max-delay',
    '100ms',
  ]);
});

after(async () => {
  await fanout?.stop('SIGTERM');
  await core?.stop('SIGTERM');
  await Promise.all([a, b, c].map((e) => e?.close()));
  await dir?.cleanup();
});

test('a write on the core hub reaches a grpc-js-xds client of the fan-out hub; Subscribe on the fan-out carries the core index', async () => {
  await register(core, 'a', a);
  const client: ClientProcess = startGrpcJsClient(
    port(fanout.grpcAddress),
    'xds:///echo',
    ECHO_METHOD,
    {},
    'fanout-client-1',
  );
  try {
    await client.untilServing('a');
    await register(core, 'b', b);
    const index = await deregister(core, 'a');
    await client.untilServing('b');

    // Subscribe re-published: a materializer over the fan-out's Subscribe API sees the core's index.
    const source = grpcSource({ address: fanout.grpcAddress });
    const views = createViewStore({ source });
    try {
      const view = await views.get({ kind: 'service-health', service: 'echo' }, { token: '', minIndex: index - 1n });
      assert.equal(view.index, index, 'the fan-out re-publishes with the upstream index');
      assert.deepEqual(
        view.value.map((csn) => csn.Service.ID),
        ['b'],
      );
    } finally {
      views.close();
      source.close();
    }
  } finally {
    await client.stop();
  }
});

test('the consul npm client pointed at the fan-out hub registers, reads its write back at once, and sees the core hub index', async () => {
  const consul = new Consul({ host: '127.0.0.1', port: Number(new URL(fanout.httpUrl).port) });
  try {
    await consul.agent.service.register({ name: 'web', id: 'web1', port: 8080, tags: ['v1'] } as never);
    // Read-your-writes: the fan-out answered the write only once its views had it.
    const healthy = (await consul.health.service({ service: 'web' })) as Array<{
      Service: { ID: string; Tags: string[] };
      Node: { Node: string };
    }>;
    assert.deepEqual(
      healthy.map((h) => [h.Node.Node, h.Service.ID, h.Service.Tags]),
      [['core', 'web1', ['v1']]],
    );
    const nodes = (await consul.catalog.service.nodes('web')) as Array<{ ServiceID: string }>;
    assert.deepEqual(
      nodes.map((n) => n.ServiceID),
      ['web1'],
    );
    // Forwarded reads (what no Subscribe topic carries) come from the core hub.
    const services = (await consul.agent.service.list()) as Record<string, { Service: string }>;
    assert.equal(services.web1?.Service, 'web');
    // The same index on both hubs for the same view.
    const onCore = await fetch(`${core.httpUrl}/v1/health/service/web`);
    const onFanout = await fetch(`${fanout.httpUrl}/v1/health/service/web`);
    assert.equal(onFanout.headers.get('x-consul-index'), onCore.headers.get('x-consul-index'));
    assert.equal(
      onFanout.headers.get('x-consul-query-backend'),
      'streaming',
      'served from the fan-out views, not forwarded',
    );
    await consul.agent.service.deregister('web1');
    assert.deepEqual(await consul.health.service({ service: 'web' }), []);
  } finally {
    consul.destroy();
  }
});

/** Resolves once the client made `n` more RPCs (each one recorded, failed or not). */
async function moreLines(client: ClientProcess, n: number): Promise<void> {
  const target = client.lines.length + n;
  await until(() => client.lines.length >= target, `${n} more RPCs from ${client.name}`);
}

/** A Delta ADS client of the fan-out hub, subscribed to the echo endpoints; every response is kept. */
async function deltaEndpoints(grpcPort: number): Promise<ScriptedClient> {
  const delta = new ScriptedClient({ port: grpcPort, path: DELTA_ADS, kind: 'delta' });
  delta.send({ node: node('fanout-delta'), typeUrl: CLA, resourceNamesSubscribe: ['echo'] });
  return delta;
}

function endpointsIn(response: Plain): string[] | 'removed' {
  if ((response.removedResources as string[]).includes('echo')) return 'removed';
  const res = (response.resources as Plain[]).find((r) => r.name === 'echo');
  if (!res) return [];
  const cla = decodeAny(res.resource as Plain);
  return ((cla.endpoints ?? []) as Plain[]).flatMap((l) =>
    ((l.lbEndpoints ?? []) as Plain[]).map((e) => String(e.endpoint?.address?.socketAddress?.portValue)),
  );
}

test('the core hub SIGKILLed and restarted under writes: the fan-out xDS clients keep serving, then converge to a change made after', async () => {
  await register(core, 'c', c);
  const client = startGrpcJsClient(port(fanout.grpcAddress), 'xds:///echo', ECHO_METHOD, {}, 'fanout-client-2');
  const delta = await deltaEndpoints(port(fanout.grpcAddress));
  let writing = true;
  const writer = (async () => {
    for (let i = 0; writing; i++) {
      // Load on the core hub: writes that fail while it is down are expected.
      await fetch(`${core.httpUrl}/v1/catalog/register`, {
        method: 'PUT',
        body: JSON.stringify({
          Node: `load-${i % 50}`,
          Address: '10.0.0.1',
          Service: { Service: `load-${i % 7}`, Port: 1000 + i },
        }),
      }).catch(() => undefined);
    }
  })();
  try {
    await client.untilServing(['b', 'c']);
    const first = await delta.next();
    delta.send({ typeUrl: CLA, responseNonce: first.nonce });
    assert.deepEqual([...endpointsIn(first)].sort(), [String(b.port), String(c.port)].sort());
    const before = client.lines.length;

    const httpPort = new URL(core.httpUrl).port;
    assert.equal(await core.stop('SIGKILL'), 'SIGKILL');
    // Traffic keeps flowing while the upstream is gone (the fan-out serves what it holds).
    await moreLines(client, 16);
    core = await startCore(['--http-port', httpPort, '--grpc-port', String(port(core.grpcAddress))]);
    await client.untilServing(['b', 'c'], 8);

    // A change after the restart reaches the fan-out's clients.
    await deregister(core, 'c');
    await client.untilServing('b');
    writing = false;
    await writer;

    const during = client.lines.slice(before);
    const failed = during.filter((l) => !l.ok);
    assert.deepEqual(failed, [], 'every RPC through the fan-out succeeded while the upstream restarted');
    // The Delta client never got an empty or removed endpoint set, only the final change.
    for (;;) {
      const r = await delta.next();
      delta.send({ typeUrl: CLA, responseNonce: r.nonce });
      const eps = endpointsIn(r);
      assert.ok(eps !== 'removed' && eps.length > 0, `no empty push: ${JSON.stringify(eps)}`);
      if (eps.length === 1 && eps[0] === String(b.port)) break;
    }
  } finally {
    writing = false;
    await writer;
    delta.close();
    await client.stop();
  }
});

test('the core hub replaced by one with another log (indexes start over): the fan-out follows it', async () => {
  const client = startGrpcJsClient(port(fanout.grpcAddress), 'xds:///echo', ECHO_METHOD, {}, 'fanout-client-3');
  try {
    await client.untilServing('b');
    const httpPort = new URL(core.httpUrl).port;
    const grpcPort = String(port(core.grpcAddress));
    assert.equal(await core.stop('SIGTERM'), 0);
    // A new hub at the same address, with an empty memory log: its indexes are far below the old ones.
    core = await spawnHub([
      '--store',
      'memory',
      '--node-name',
      'core-2',
      '--http-port',
      httpPort,
      '--grpc-port',
      grpcPort,
    ]);
    await register(core, 'a', a);
    const index = await register(core, 'c', c);
    await client.untilServing(['a', 'c']);
    const onFanout = await fetch(`${fanout.httpUrl}/v1/health/service/echo`);
    assert.equal(onFanout.headers.get('x-consul-index'), String(index), "the fan-out answers with the new log's index");
    assert.deepEqual(((await onFanout.json()) as Array<{ Service: { ID: string } }>).map((h) => h.Service.ID).sort(), [
      'a',
      'c',
    ]);
  } finally {
    await client.stop();
  }
});
