// A reconnecting SotW client's first request — a version_info, no nonce, what
// every SotW Envoy sends after losing the hub — served by the real catalog
// provider (which reads the node) on ADS and on the per-type services, v3 and
// v2, over real grpc-js. And a fault of the hub's own (a provider that throws)
// ends the stream with INTERNAL and a logged reason, never INVALID_ARGUMENT.

import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, type TestContext, test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import pino from 'pino';
import type { Hub as FullHub } from '../../../src/hub';
import { lookupType } from '../../../src/xds/transport/envoy-proto';
import type { ResourceSet, XdsNode } from '../../../src/xds/transport/provider';
import { createXdsServer } from '../../../src/xds/transport/server';
import { TypeUrl, TypeUrlV2 } from '../../../src/xds/transport/type-urls';
import { hubCall, startHubWithXds } from '../../envoy/harness';
import { until } from '../../helpers/until';
import { type Plain, ScriptedClient, sotwNames } from './helpers/client';
import { seed, TestProvider } from './helpers/fixtures';

const { status } = grpc;

const T = { timeout: 30_000 };

interface Way {
  name: string;
  path: string;
  api: 'v3' | 'v2';
  /** Envoy fills type_url in on per-type streams too, so the test does. */
  typeUrl: string;
}

const WAYS: readonly Way[] = [
  {
    name: 'ADS v3',
    path: '/envoy.service.discovery.v3.AggregatedDiscoveryService/StreamAggregatedResources',
    api: 'v3',
    typeUrl: TypeUrl.Cluster,
  },
  {
    name: 'ADS v2',
    path: '/envoy.service.discovery.v2.AggregatedDiscoveryService/StreamAggregatedResources',
    api: 'v2',
    typeUrl: TypeUrlV2.Cluster,
  },
  {
    name: 'per-type CDS v3',
    path: '/envoy.service.cluster.v3.ClusterDiscoveryService/StreamClusters',
    api: 'v3',
    typeUrl: TypeUrl.Cluster,
  },
  {
    name: 'per-type CDS v2',
    path: '/envoy.api.v2.ClusterDiscoveryService/StreamClusters',
    api: 'v2',
    typeUrl: TypeUrlV2.Cluster,
  },
  {
    name: 'per-type LDS v3',
    path: '/envoy.service.listener.v3.ListenerDiscoveryService/StreamListeners',
    api: 'v3',
    typeUrl: TypeUrl.Listener,
  },
  {
    name: 'per-type LDS v2',
    path: '/envoy.api.v2.ListenerDiscoveryService/StreamListeners',
    api: 'v2',
    typeUrl: TypeUrlV2.Listener,
  },
];

let hub: FullHub;
const clients: ScriptedClient[] = [];
const GATEWAY = 'edge-reconnect';

before(async () => {
  hub = await startHubWithXds();
  await hubCall(hub.httpUrl, 'PUT', '/v1/catalog/register', {
    Node: 'n1',
    Address: '127.0.0.1',
    Service: { ID: 'web1', Service: 'web', Port: 8080 },
  });
  await hubCall(hub.httpUrl, 'PUT', '/v1/config', {
    Kind: 'ingress-gateway',
    Name: GATEWAY,
    Listeners: [{ Port: 18080, Protocol: 'http', Services: [{ Name: 'web', Hosts: ['*'] }] }],
  });
});
after(async () => {
  for (const c of clients) c.close();
  await hub.close();
});

function open(way: Way): ScriptedClient {
  const c = new ScriptedClient({ port: hub.grpcPort, path: way.path, kind: 'sotw', api: way.api });
  clients.push(c);
  return c;
}

const gatewayNode = (id: string): Plain => ({
  id,
  cluster: GATEWAY,
  userAgentName: 'envoy',
  userAgentVersion: '1.40.0',
});

/** The first response of a stream, or how the stream ended (a failure names the status). */
async function firstAnswer(c: ScriptedClient): Promise<Plain> {
  const ended = c.status.then((st) => {
    throw new Error(`the stream ended with ${status[st.code]} "${st.details}" instead of answering`);
  });
  return Promise.race([c.next(), ended]);
}

/** What a fresh client gets: the current set and its version. */
async function current(way: Way, id: string): Promise<Plain> {
  const c = open(way);
  c.send({ node: gatewayNode(id), typeUrl: way.typeUrl, resourceNames: [] });
  const r = await firstAnswer(c);
  assert.ok(r.resources.length > 0, `${way.name}: the gateway has ${way.typeUrl} resources`);
  c.close();
  return r;
}

for (const way of WAYS) {
  test(
    `X-ACK-7, ${way.name}: a reconnect-shaped first request (version_info, no nonce) is answered, not refused`,
    T,
    async () => {
      const fresh = await current(way, `fresh-${way.name}`);
      // Reconnecting after the hub restarted and the set moved on: the client names a version it no longer matches.
      const stale = open(way);
      stale.send({
        node: gatewayNode(`stale-${way.name}`),
        typeUrl: way.typeUrl,
        resourceNames: [],
        versionInfo: 'held-before-restart',
        responseNonce: '',
      });
      const r = await firstAnswer(stale);
      assert.equal(r.typeUrl, way.typeUrl);
      assert.deepEqual(sotwNames(r), sotwNames(fresh), 'the whole current set');
      // It ACKs; the stream stays up and holds what it was sent.
      stale.send({ typeUrl: way.typeUrl, resourceNames: [], versionInfo: r.versionInfo, responseNonce: r.nonce });

      // Reconnecting to a hub whose set is the one it holds: nothing to resend (X-ACK-7), and the stream stays open.
      const id = `held-${way.name}`;
      const held = open(way);
      held.send({
        node: gatewayNode(id),
        typeUrl: way.typeUrl,
        resourceNames: [],
        versionInfo: fresh.versionInfo,
        responseNonce: '',
      });
      // The stream's state is set by the time the request is processed; the admin view shows it.
      const info = await until(async () => {
        const all = (await hubCall(hub.httpUrl, 'GET', '/v1/xds/clients')) as Plain[];
        return all
          .find((x) => x['node']?.id === id)
          ?.['types'].find((x: Plain) => x['ackedVersion'] === fresh.versionInfo);
      }, `the admin view shows ${id} holding the fresh version`);
      assert.equal(info.pendingNonce ?? '', '', 'nothing sent: it already holds this version');
      assert.equal(held.unread, 0);
    },
  );
}

/** A provider that throws for one node: a fault of the hub, not of the request. */
class ThrowingProvider extends TestProvider {
  override get(typeUrl: string, node: XdsNode): ResourceSet {
    if (node.id === 'doomed') throw new TypeError("Cannot read properties of undefined (reading 'id')");
    return super.get(typeUrl, node);
  }
}

/** The xDS server over `provider` on a loopback port, logging (warn and up) into `lines`. */
async function throwingServer(t: TestContext): Promise<{ port: number; lines: () => Plain[] }> {
  const p = new ThrowingProvider();
  seed(p);
  const out: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      out.push(String(chunk));
      cb();
    },
  });
  const xds = createXdsServer({
    provider: p,
    config: {
      resourceTtlMs: 0,
      heartbeatIntervalMs: 0,
      xdsDebounceMs: 2,
      xdsMaxDelayMs: 20,
      xdsMaxStreams: 0,
      memoryTrim: false,
    },
    logger: pino({ level: 'warn' }, sink),
  });
  const server = new grpc.Server();
  xds.addTo(server);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, bound) =>
      err ? reject(err) : resolve(bound),
    ),
  );
  t.after(() => {
    xds.close();
    server.forceShutdown();
  });
  return {
    port,
    lines: () =>
      out
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Plain),
  };
}

const internalLines = (lines: Plain[]) => lines.filter((l) => /internal error/.test(String(l['msg'])));

test(
  'a provider that throws ends the stream with INTERNAL and logs why, on a first and a reconnect-shaped request',
  T,
  async (t) => {
    const { port, lines } = await throwingServer(t);
    const ads = '/envoy.service.discovery.v3.AggregatedDiscoveryService/StreamAggregatedResources';
    for (const first of [{ versionInfo: '' }, { versionInfo: 'held-before-restart' }]) {
      const c = new ScriptedClient({ port, path: ads, kind: 'sotw' });
      t.after(() => c.close());
      c.send({ node: { id: 'doomed', cluster: 'x' }, typeUrl: TypeUrl.Cluster, resourceNames: [], ...first });
      const st = await c.status;
      assert.equal(st.code, status.INTERNAL, `${JSON.stringify(first)}: ${status[st.code]} ${st.details}`);
      assert.doesNotMatch(st.details, /cannot decode/);
      assert.match(st.details, /^internal error: Cannot read properties of undefined/);
    }
    const logged = internalLines(lines());
    assert.equal(logged.length, 2, JSON.stringify(lines()));
    assert.equal(logged[0]!['level'], 50, 'logged at error level');
    assert.equal(logged[0]!['node'], 'doomed');
    assert.match(String(logged[0]!['err']?.stack), /TypeError: Cannot read properties/, 'with the stack');
    // Another node on the same server is served.
    const ok = new ScriptedClient({ port, path: ads, kind: 'sotw' });
    t.after(() => ok.close());
    ok.send({ node: { id: 'fine', cluster: 'x' }, typeUrl: TypeUrl.Cluster, resourceNames: [] });
    assert.deepEqual(sotwNames(await ok.next()), ['c1', 'c2']);
  },
);

test(
  'unary FetchClusters: a provider that throws is INTERNAL with a logged reason, not "cannot decode"',
  T,
  async (t) => {
    const { port, lines } = await throwingServer(t);
    const Req = lookupType('envoy.service.discovery.v3.DiscoveryRequest');
    const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    t.after(() => client.close());
    const fetchAs = (id: string) =>
      new Promise<grpc.ServiceError | undefined>((resolve) =>
        client.makeUnaryRequest(
          '/envoy.service.cluster.v3.ClusterDiscoveryService/FetchClusters',
          (m: Plain) => Buffer.from(Req.encode(Req.fromObject(m)).finish()),
          (b: Buffer) => b,
          { node: { id, cluster: 'x' }, resourceNames: [] },
          (err) => resolve(err ?? undefined),
        ),
      );
    const err = await fetchAs('doomed');
    assert.equal(err?.code, status.INTERNAL, String(err));
    assert.doesNotMatch(err!.details, /cannot decode/);
    assert.equal(internalLines(lines()).length, 1, JSON.stringify(lines()));
    assert.equal(await fetchAs('fine'), undefined);
  },
);
