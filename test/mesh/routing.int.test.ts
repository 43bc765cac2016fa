// A sidecar's upstream honours the destination's discovery chain as a gateway
// does (docs/mesh.md "What a sidecar gets"), shown by real Envoys: A → A's
// sidecar → the sidecars of web's v1 or v2 instances, picked by a
// service-resolver's subsets (selecting sidecars by their app's Meta), a
// service-splitter's weights and a service-router's header match; and an
// endpoint of web whose Envoy presents another service's certificate is
// refused by A's sidecar (the SPIFFE ID SAN check), never reaching its app.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type Consul from 'consul';
import type { Hub } from '../../src/hub';
import { request, startBackend, untilServedBy } from '../envoy/harness';
import type { Envoy } from '../helpers/envoy';
import { freePort, registerApp, startCallerOfWeb, startMeshHub, startSidecar } from './harness';

let hub: Hub;
let consul: Consul;
const closers: (() => Promise<unknown>)[] = [];
let envoyA: Envoy;
let upWeb: number;
let publicA: number;

async function put(entry: object): Promise<void> {
  const res = await hub.http.inject({ method: 'PUT', url: '/v1/config', payload: entry });
  assert.equal(res.statusCode, 200, res.body);
}

before(async () => {
  ({ hub, consul } = await startMeshHub());
  closers.push(
    async () => consul.destroy(),
    () => hub.close(),
  );
  await put({ Kind: 'service-defaults', Name: 'web', Protocol: 'http' });
  await put({
    Kind: 'service-resolver',
    Name: 'web',
    DefaultSubset: 'v1',
    Subsets: { v1: { Filter: 'Service.Meta.version == 1' }, v2: { Filter: 'Service.Meta.version == 2' } },
  });
  const envoys: Promise<Envoy>[] = [];
  for (const v of ['1', '2']) {
    const app = await startBackend(`v${v}`);
    closers.push(() => app.close());
    const proxy = await registerApp(consul, {
      name: 'web',
      id: `web${v}`,
      port: app.port,
      sidecarPort: await freePort(),
      meta: { version: v },
    });
    envoys.push(startSidecar(hub, proxy, 'web-sidecar-proxy'));
  }
  [upWeb, publicA] = [await freePort(), await freePort()];
  envoys.push(startCallerOfWeb(hub, consul, closers, upWeb, publicA));
  const started = await Promise.all(envoys);
  envoyA = started[2]!;
  closers.push(...started.map((e) => () => e.stop()));
});
after(async () => {
  for (const c of closers.reverse()) await c().catch(() => undefined);
});

test('the resolver’s default subset, a router’s header match to a subset, and a splitter’s weights decide which sidecar A’s calls reach', async () => {
  await untilServedBy(envoyA, upWeb, 'v1', { capMs: 30_000 });
  await put({
    Kind: 'service-router',
    Name: 'web',
    Routes: [
      { Match: { HTTP: { Header: [{ Name: 'x-canary', Exact: 'yes' }] } }, Destination: { ServiceSubset: 'v2' } },
    ],
  });
  await envoyA.until(
    async () => (await request(upWeb, '/', { headers: { 'x-canary': 'yes' } })).body === 'v2',
    'x-canary: yes reaches v2',
  );
  for (let i = 0; i < 5; i++)
    assert.equal((await request(upWeb, '/')).body, 'v1', 'without the header: the default subset');
  await put({
    Kind: 'service-splitter',
    Name: 'web',
    Splits: [
      { Weight: 50, ServiceSubset: 'v1' },
      { Weight: 50, ServiceSubset: 'v2' },
    ],
  });
  await untilServedBy(envoyA, upWeb, ['v1', 'v2']);
  await put({ Kind: 'service-splitter', Name: 'web', Splits: [{ Weight: 100, ServiceSubset: 'v2' }] });
  await untilServedBy(envoyA, upWeb, 'v2');
  assert.equal((await envoyA.rejectedUpdates()).total, 0, 'no update was rejected');
});

test('an endpoint of web that presents a’s certificate is refused by A’s sidecar: the SAN must be web’s SPIFFE ID', async () => {
  // An impostor "web" proxy (subset v3) whose address is A's own public listener: A's Envoy presents a's leaf there.
  const reg = await hub.http.inject({
    method: 'PUT',
    url: '/v1/catalog/register',
    payload: {
      Node: 'mesh-node',
      Address: '127.0.0.1',
      Service: {
        ID: 'impostor',
        Service: 'web-sidecar-proxy',
        Kind: 'connect-proxy',
        Port: publicA,
        Meta: { version: '3' },
        Proxy: { DestinationServiceName: 'web', LocalServicePort: 1 },
      },
    },
  });
  assert.equal(reg.statusCode, 200, reg.body);
  await put({
    Kind: 'service-resolver',
    Name: 'web',
    DefaultSubset: 'v1',
    Subsets: {
      v1: { Filter: 'Service.Meta.version == 1' },
      v2: { Filter: 'Service.Meta.version == 2' },
      v3: { Filter: 'Service.Meta.version == 3' },
    },
  });
  await put({
    Kind: 'service-router',
    Name: 'web',
    Routes: [
      { Match: { HTTP: { Header: [{ Name: 'x-canary', Exact: 'three' }] } }, Destination: { ServiceSubset: 'v3' } },
    ],
  });
  const sanFailures = async () =>
    [...(await envoyA.stats())].filter(([n]) => n.endsWith('.ssl.fail_verify_san')).reduce((sum, [, v]) => sum + v, 0);
  let last = '';
  await envoyA.until(
    async () => {
      const res = await request(upWeb, '/', { headers: { 'x-canary': 'three' } });
      last = `${res.status} ${res.body.slice(0, 80)}`;
      return res.status !== 200 && (await sanFailures()) > 0;
    },
    () => `A's Envoy refuses the impostor for its SAN (last: ${last})`,
  );
  for (let i = 0; i < 3; i++)
    assert.notEqual(
      (await request(upWeb, '/', { headers: { 'x-canary': 'three' } })).body,
      'a-app',
      'the impostor never answers',
    );
});
