// A service whose only instance is deregistered, and that is registered again
// afterwards (a new instance on another port), must reach a real
// @grpc/grpc-js-xds client again. That client never takes back a resource it
// was told does not exist if it returns with the same content (docs/xds.md,
// "What real clients do with a resource that comes back"), so while the service
// is departed the hub keeps its Listener, route and Cluster for clients that
// name it, with no endpoints. The client's RDS subscription (the hub's admin
// view, what GET /v1/xds/config/:node shows) must still name the route.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ECHO_METHOD, type EchoBackend, startEcho } from './echo-backend';
import { type ClientProcess, startGrpcJsClient, startXdsHub, type XdsHub } from './harness';

let hub: XdsHub;
const backends: EchoBackend[] = [];
const clients: ClientProcess[] = [];

const register = (b: EchoBackend) =>
  hub.put('/v1/agent/service/register', { ID: b.name, Name: 'again', Address: '127.0.0.1', Port: b.port });

before(async () => {
  hub = await startXdsHub();
  for (const name of ['again-1', 'again-2']) backends.push(await startEcho(name));
});

after(async () => {
  await Promise.all(clients.map((c) => c.stop()));
  await hub?.close();
  await Promise.all(backends.map((b) => b.close()));
});

/** The route names the node's streams cover (what GET /v1/xds/config/:node shows under routes). */
const routes = (node: string): string[] => Object.keys(hub.xds.configFor(node)?.resources['routes'] ?? {});

test('grpc-js-xds recovers when the only instance of a service is deregistered and the service registered again', async () => {
  const [first, second] = backends as [EchoBackend, EchoBackend];
  await register(first);
  const js = startGrpcJsClient(hub.hub.grpcPort, 'xds:///again', ECHO_METHOD, {}, 'grpc-js-again');
  clients.push(js);
  await js.untilServing('again-1');
  assert.deepEqual(routes('grpc-js-again'), ['again']);

  // The service is gone: the client's RPCs fail (no endpoints), and it still watches the route.
  const before = js.lines.length;
  await hub.put(`/v1/agent/service/deregister/${first.name}`);
  await js.untilFailing(before);
  assert.deepEqual(
    routes('grpc-js-again'),
    ['again'],
    'the client still subscribes to the route while the service is departed',
  );

  // Registered again, on another port: the client must be served again.
  await register(second);
  await js.untilServing('again-2', 8, 60_000);
  assert.deepEqual(routes('grpc-js-again'), ['again'], 'the client subscribes to the route');
  assert.ok(second.served() > 0, 'the new instance served real requests');
});
