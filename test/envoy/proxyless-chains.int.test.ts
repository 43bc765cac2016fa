// The same discovery chains reach proxyless gRPC clients, where gRPC supports
// them: a service-splitter's weighted clusters (grpc-js-xds and C-core both
// spread calls over the split targets) and a service-router header match
// (grpc-js-xds with the header goes only to the matched destination).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Hub } from '../../src/hub';
import { tmpDir } from '../helpers/tmp';
import { ECHO_METHOD, type EchoBackend, startEcho } from '../xds/e2e/echo-backend';
import { type ClientProcess, startCCoreClient, startGrpcJsClient } from '../xds/e2e/harness';
import { hubCall, hubNacks, startHubWithXds } from './harness';

let hub: Hub;
const echoes: EchoBackend[] = [];
const clients: ClientProcess[] = [];
let dir: { path: string; cleanup(): Promise<void> };

before(async () => {
  hub = await startHubWithXds();
  dir = await tmpDir('xdshub-proxyless');
  for (const name of ['px-a', 'px-b']) {
    const e = await startEcho(name);
    echoes.push(e);
    await hubCall(hub.httpUrl, 'PUT', '/v1/catalog/register', {
      Node: 'px-node',
      Address: '127.0.0.1',
      Service: { ID: name, Service: name, Port: e.port },
    });
  }
  await hubCall(hub.httpUrl, 'PUT', '/v1/config', { Kind: 'service-defaults', Name: 'px', Protocol: 'grpc' });
  await hubCall(hub.httpUrl, 'PUT', '/v1/config', {
    Kind: 'service-splitter',
    Name: 'px',
    Splits: [
      { Weight: 50, Service: 'px-a' },
      { Weight: 50, Service: 'px-b' },
    ],
  });
  await hubCall(hub.httpUrl, 'PUT', '/v1/config', {
    Kind: 'service-router',
    Name: 'px',
    Routes: [{ Match: { HTTP: { Header: [{ Name: 'x-pick', Exact: 'b' }] } }, Destination: { Service: 'px-b' } }],
  });
});

after(async () => {
  await Promise.all(clients.map((c) => c.stop()));
  await hub?.close();
  await Promise.all(echoes.map((e) => e.close()));
  await dir?.cleanup();
});

test("grpc-js-xds and C-core spread calls to xds:///px over the splitter's targets; a header match sends grpc-js to one", async () => {
  const js = startGrpcJsClient(hub.grpcPort, 'xds:///px', ECHO_METHOD, {}, 'px-js');
  const core = startCCoreClient(hub.grpcPort, 'xds:///px', ECHO_METHOD, dir.path);
  const picked = startGrpcJsClient(hub.grpcPort, 'xds:///px', ECHO_METHOD, { 'x-pick': 'b' }, 'px-js-picked');
  clients.push(js, core, picked);
  await Promise.all([
    js.untilServing(['px-a', 'px-b'], 16),
    core.untilServing(['px-a', 'px-b'], 16),
    picked.untilServing('px-b', 16),
  ]);
  assert.equal(await hubNacks(hub), 0, 'no client NACKed the chain routes');
});
