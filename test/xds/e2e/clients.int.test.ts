// Real proxyless clients through the hub: @grpc/grpc-js-xds (child process) and
// gRPC C-core (Debian python3-grpcio) call xds:///echo; the backends are real
// gRPC servers registered through the HTTP API with TTL checks. RPCs must move
// when a check turns critical and when an instance is deregistered and another
// registered; neither client may NACK anything the hub sent.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ECHO_METHOD, type EchoBackend, startEcho } from './echo-backend';
import { type ClientProcess, startCCoreClient, startGrpcJsClient, startXdsHub, type XdsHub } from './harness';

let hub: XdsHub;
const backends: EchoBackend[] = [];
const clients: ClientProcess[] = [];

const register = (b: EchoBackend) =>
  hub.put('/v1/agent/service/register', {
    ID: b.name,
    Name: 'echo',
    Address: '127.0.0.1',
    Port: b.port,
    Check: { CheckID: `${b.name}-ttl`, Name: `${b.name} alive`, TTL: '10m', Status: 'passing' },
  });

before(async () => {
  hub = await startXdsHub();
  for (const name of ['echo-a', 'echo-b', 'echo-c']) backends.push(await startEcho(name));
});

after(async () => {
  await Promise.all(clients.map((c) => c.stop()));
  await hub?.close();
  await Promise.all(backends.map((b) => b.close()));
});

async function nackCount(): Promise<number> {
  const metric = await hub.xds.metrics.nacks.get();
  return metric.values.reduce((s, v) => s + v.value, 0);
}

test('grpc-js-xds and C-core follow health and registrations through xds:///echo without a NACK', async () => {
  const [a, b, c] = backends as [EchoBackend, EchoBackend, EchoBackend];
  await register(a);
  const js = startGrpcJsClient(hub.hub.grpcPort, 'xds:///echo', ECHO_METHOD);
  const core = startCCoreClient(hub.hub.grpcPort, 'xds:///echo', ECHO_METHOD, hub.hub.config.dataDir);
  clients.push(js, core);
  await Promise.all([js.untilServing('echo-a'), core.untilServing('echo-a')]);

  // Both clients are connected, each named its listener (never by wildcard) and ACKed all four types.
  const streams = hub.xds.clients().filter((s) => s.node && ['grpc-js-e2e', 'c-core-e2e'].includes(s.node.id));
  assert.deepEqual(streams.map((s) => s.node!.id).sort(), ['c-core-e2e', 'grpc-js-e2e']);
  for (const s of streams) {
    const lds = s.types.find((t) => t.type === 'LDS');
    assert.ok(lds && !lds.wildcard && lds.names.includes('echo'), `${s.node!.id} subscribes to Listener echo by name`);
    for (const t of s.types)
      assert.ok(t.ackedVersion !== '' || Object.keys(t.acked).length > 0, `${s.node!.id} acked ${t.type}`);
  }

  // A second instance, then the first one's TTL check fails: traffic moves to B only.
  await register(b);
  await hub.put(`/v1/agent/check/fail/${a.name}-ttl`);
  await Promise.all([js.untilServing('echo-b', 15), core.untilServing('echo-b', 15)]);

  // B is deregistered and C registered: traffic moves to C.
  await hub.put(`/v1/agent/service/deregister/${b.name}`);
  await register(c);
  await Promise.all([js.untilServing('echo-c', 15), core.untilServing('echo-c', 15)]);

  // The check passes again: A is back beside C.
  await hub.put(`/v1/agent/check/pass/${a.name}-ttl`);
  await Promise.all([js.untilServing(['echo-a', 'echo-c'], 12), core.untilServing(['echo-a', 'echo-c'], 12)]);

  assert.equal(await nackCount(), 0, 'no client NACKed anything');
  for (const s of hub.xds.clients()) {
    for (const t of s.types) assert.equal(t.lastNack, null, `${s.node?.id} ${t.type}: ${JSON.stringify(t.lastNack)}`);
  }
  for (const backend of [a, b, c]) assert.ok(backend.served() > 0, `${backend.name} served real requests`);
});
