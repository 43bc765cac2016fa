// A dry run predicts the subscriptions a change makes a client take or drop
// (src/ops/subscriptions.ts, docs/operator-tools.md "Subscriptions a change
// triggers"), and a real @grpc/grpc-js-xds client then does exactly that: a
// service-router sending xds:///echo's traffic to echo-v2 makes it subscribe
// to Cluster echo-v2 and then its ClusterLoadAssignment (whose content the
// prediction gives: echo-b's port); deleting the router makes it drop both.
// The client's subscriptions are read from the hub's per-stream state.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { call } from '../helpers/hub';
import { ECHO_METHOD, type EchoBackend, startEcho } from '../xds/e2e/echo-backend';
import { type ClientProcess, startGrpcJsClient, startXdsHub, type XdsHub } from '../xds/e2e/harness';
import { until } from './helpers';

const NODE = 'grpc-js-subs';
const REST: Record<string, string> = { CDS: 'clusters', EDS: 'endpoints', LDS: 'listeners', RDS: 'routes' };

let hub: XdsHub;
let client: ClientProcess;
const echoes: EchoBackend[] = [];

/** The client's subscriptions as the hub's xDS server holds them: "type name", sorted. */
function subscriptions(): string[] {
  const s = hub.xds.clients().find((c) => c.node?.id === NODE);
  return (s?.types ?? []).flatMap((t) => (REST[t.type] ? t.names.map((n) => `${REST[t.type]} ${n}`) : [])).sort();
}

/** What the client ACKed: "type name" → version. */
function ackedVersions(): Map<string, string> {
  const s = hub.xds.clients().find((c) => c.node?.id === NODE);
  return new Map(
    (s?.types ?? []).flatMap((t) =>
      Object.entries(t.acked).map(([n, v]): [string, string] => [`${REST[t.type]} ${n}`, v]),
    ),
  );
}

async function dryRun(method: string, path: string, body?: unknown): Promise<any> {
  const res = await call(hub.hub, 'POST', '/v1/ops/dry-run', { Method: method, Path: path, Body: body });
  assert.equal(res.status, 200, res.text);
  const group = res.json.diffs.find((d: any) => d.nodes.includes(NODE));
  assert.ok(group, `the client is affected: ${res.text}`);
  return group;
}

const router = {
  Kind: 'service-router',
  Name: 'echo',
  Routes: [{ Match: { HTTP: { PathPrefix: '/' } }, Destination: { Service: 'echo-v2' } }],
};

before(async () => {
  hub = await startXdsHub();
  for (const [id, service] of [
    ['echo-a', 'echo'],
    ['echo-b', 'echo-v2'],
  ] as const) {
    const e = await startEcho(id);
    echoes.push(e);
    await hub.put('/v1/agent/service/register', { ID: id, Name: service, Address: '127.0.0.1', Port: e.port });
    await hub.put('/v1/config', { Kind: 'service-defaults', Name: service, Protocol: 'grpc' });
  }
  client = startGrpcJsClient(hub.hub.grpcPort, 'xds:///echo', ECHO_METHOD, {}, NODE);
  await client.untilServing('echo-a');
});

after(async () => {
  await client?.stop();
  await hub?.close();
  for (const e of echoes) await e.close();
});

test('a route to a new cluster: the dry run predicts the CDS and EDS subscriptions, with their content, and grpc-js-xds takes exactly those', async () => {
  const before = subscriptions();
  assert.ok(before.includes('listeners echo') && before.includes('clusters echo'), before.join(', '));
  const group = await dryRun('PUT', '/v1/config', router);
  assert.deepEqual(
    group.subscribes.map((s: any) => `${s.type} ${s.name}`),
    ['clusters echo-v2', 'endpoints echo-v2'],
  );
  assert.deepEqual(group.unsubscribes, []);
  const [cluster, endpoints] = group.subscribes;
  assert.equal(cluster.resource.name, 'echo-v2');
  assert.equal(cluster.resource.type, 'EDS');
  const ports = endpoints.resource.endpoints.flatMap((l: any) =>
    l.lbEndpoints.map((e: any) => e.endpoint.address.socketAddress.portValue),
  );
  assert.deepEqual(ports, [echoes[1]!.port], "echo-b's endpoint");
  assert.ok(
    group.changed.some((c: any) => c.type === 'routes' && c.name === 'echo'),
    'the route it holds changes',
  );

  await hub.put('/v1/config', router);
  await client.untilServing('echo-b');
  const predicted = [...before, ...group.subscribes.map((s: any) => `${s.type} ${s.name}`)].sort();
  await until(() => JSON.stringify(subscriptions()) === JSON.stringify(predicted) || undefined, 'the predicted set');
  const held = await until(() => {
    const v = ackedVersions();
    return group.subscribes.every((s: any) => v.get(`${s.type} ${s.name}`) === s.version) ? v : undefined;
  }, 'the client to ACK the predicted versions');
  assert.equal(held.get('clusters echo-v2'), cluster.version);
});

test('deleting the route: the dry run predicts the client drops that cluster and its endpoints, and it does', async () => {
  const before = subscriptions();
  assert.ok(before.includes('clusters echo-v2'), before.join(', '));
  const group = await dryRun('DELETE', '/v1/config/service-router/echo');
  assert.deepEqual(group.subscribes, []);
  assert.deepEqual(
    group.unsubscribes.map((s: any) => `${s.type} ${s.name}`),
    ['clusters echo-v2', 'endpoints echo-v2'],
  );
  const res = await fetch(`${hub.hub.httpUrl}/v1/config/service-router/echo`, { method: 'DELETE' });
  assert.equal(res.status, 200, await res.text());
  await client.untilServing('echo-a');
  const dropped = new Set(group.unsubscribes.map((s: any) => `${s.type} ${s.name}`));
  const predicted = before.filter((s) => !dropped.has(s));
  await until(() => JSON.stringify(subscriptions()) === JSON.stringify(predicted) || undefined, 'the predicted set');
});
