// Checks the hub runs decide what xDS clients reach: three gRPC backends behind
// xds:///echo, each watched by a different kind of check (HTTP, TCP, gRPC
// health). When a check's target goes bad, a real @grpc/grpc-js-xds client
// stops reaching that backend; when it recovers, traffic comes back.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ECHO_METHOD, type EchoBackend, startEcho } from '../xds/e2e/echo-backend';
import { type ClientProcess, startGrpcJsClient, startXdsHub, type XdsHub } from '../xds/e2e/harness';
import { startGrpcHealth, startHttpHealth, startTcp } from './backends';
import { status, untilCheck } from './helpers';

const INTERVAL = '200ms';
const TIMEOUT = '1s';

let hub: XdsHub;
const closers: Array<() => Promise<unknown>> = [];
let client: ClientProcess | undefined;

before(async () => {
  hub = await startXdsHub();
});
after(async () => {
  await client?.stop();
  await hub?.close();
  for (const c of closers) await c();
});

test('HTTP, TCP and gRPC checks take instances out of xDS and back', async () => {
  const [a, b, c] = (await Promise.all(['echo-a', 'echo-b', 'echo-c'].map((n) => startEcho(n)))) as [
    EchoBackend,
    EchoBackend,
    EchoBackend,
  ];
  const httpHealth = await startHttpHealth();
  const tcp = await startTcp();
  const grpcHealth = await startGrpcHealth();
  closers.push(a.close, b.close, c.close, httpHealth.close, tcp.close, grpcHealth.close);
  const node = hub.hub.config.nodeName;

  const checks = {
    'echo-a': { CheckID: 'echo-a-http', HTTP: httpHealth.url, Interval: INTERVAL, Timeout: TIMEOUT },
    'echo-b': { CheckID: 'echo-b-tcp', TCP: tcp.address, Interval: INTERVAL, Timeout: TIMEOUT },
    'echo-c': { CheckID: 'echo-c-grpc', GRPC: grpcHealth.address, Interval: INTERVAL, Timeout: TIMEOUT },
  };
  for (const backend of [a, b, c]) {
    await hub.put('/v1/agent/service/register', {
      ID: backend.name,
      Name: 'echo',
      Address: '127.0.0.1',
      Port: backend.port,
      Check: checks[backend.name as keyof typeof checks],
    });
  }
  // New checks start critical; the runner's first probes let every instance in.
  await Promise.all(Object.values(checks).map((k) => untilCheck(hub.hub.catalog, node, k.CheckID, status('passing'))));
  client = startGrpcJsClient(hub.hub.grpcPort, 'xds:///echo', ECHO_METHOD);
  await client.untilServing(['echo-a', 'echo-b', 'echo-c'], 12);

  const flips: Array<{ check: string; toCriticalMs: number; toPassingMs: number }> = [];
  const cases: Array<[string, () => unknown, () => unknown, string[]]> = [
    ['echo-a-http', () => httpHealth.setStatus(503), () => httpHealth.setStatus(200), ['echo-b', 'echo-c']],
    ['echo-b-tcp', () => tcp.setOpen(false), () => tcp.setOpen(true), ['echo-a', 'echo-c']],
    ['echo-c-grpc', () => grpcHealth.setServing(false), () => grpcHealth.setServing(true), ['echo-a', 'echo-b']],
  ];
  for (const [checkId, breakIt, fixIt, others] of cases) {
    let started = Date.now();
    await breakIt();
    await untilCheck(hub.hub.catalog, node, checkId, status('critical'));
    const toCriticalMs = Date.now() - started;
    await client.untilServing(others, 12);
    started = Date.now();
    await fixIt();
    await untilCheck(hub.hub.catalog, node, checkId, status('passing'));
    const toPassingMs = Date.now() - started;
    await client.untilServing(['echo-a', 'echo-b', 'echo-c'], 12);
    flips.push({ check: checkId, toCriticalMs, toPassingMs });
  }
  // How long each flip took in the catalog (the check's own interval is 200 ms, its timeout 1 s).
  console.log(`check flips: ${JSON.stringify(flips)}`);
  assert.equal(flips.length, 3);
});
