// `xdshub serve` as a real process, started from the compiled build exactly as
// `npm start` runs it, serves everything on its two ports: the HTTP API,
// Consul's Subscribe on gRPC, xDS over REST-JSON and its admin view.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { TypeUrl } from '../../src/xds/transport/type-urls';
import { type SpawnedHub, spawnHub } from '../helpers/hub';
import { StreamReader, type SubscribeClient, subscribeClient } from '../subscribe/grpc-helpers';
import { ScriptedClient, sotwNames } from '../xds/transport/helpers/client';
import { ADS } from '../xds/transport/helpers/harness';
import { SotwScript } from '../xds/transport/helpers/scripts';

let hub: SpawnedHub;
let client: SubscribeClient;
before(async () => {
  hub = await spawnHub(
    ['--store', 'memory', '--http-port', '0', '--grpc-port', '0', '--node-name', 'serve-test'],
    {},
    { built: true },
  );
  client = subscribeClient(hub.grpcAddress);
  // The first write to a fresh hub: it must reach the xDS views (index 1 is
  // the log's origin entry, so it never shares an index with the empty snapshot).
  const res = await fetch(`${hub.httpUrl}/v1/catalog/register`, {
    method: 'PUT',
    body: JSON.stringify({
      Node: 'n1',
      Address: '10.0.0.1',
      Service: { ID: 'web-1', Service: 'web', Port: 8080 },
      Check: { CheckID: 'web-1-alive', ServiceID: 'web-1', Status: 'passing' },
    }),
  });
  assert.equal(res.status, 200, await res.text());
});
after(async () => {
  client?.close();
  if (hub) assert.equal(await hub.stop('SIGTERM'), 0, hub.stderr());
});

test('Subscribe on the gRPC port streams the snapshot of a service written over HTTP', async () => {
  const stream = new StreamReader(client.Subscribe({ Topic: 'ServiceHealth', NamedSubject: { Key: 'web' } }));
  const first = await stream.next();
  assert.equal(first.Payload, 'ServiceHealth');
  assert.match(JSON.stringify(first), /web-1/);
  stream.call.cancel();
  await stream.status;
});

test('xDS on the gRPC port (ADS) and over REST-JSON on the HTTP port serve the service as a cluster', async () => {
  const port = Number(hub.grpcAddress.split(':').pop());
  const ads = new ScriptedClient({ port, path: ADS, kind: 'sotw' });
  try {
    const script = new SotwScript(ads, 'envoy-1');
    script.request(TypeUrl.Cluster, []);
    // Each push is awaited and ACKed until the cluster for "web" is in the set.
    for (;;) {
      const r = await script.expect(TypeUrl.Cluster);
      script.ack(r);
      if (sotwNames(r).some((n) => n.includes('web'))) break;
    }
    const res = await fetch(`${hub.httpUrl}/v3/discovery:clusters`, {
      method: 'POST',
      body: JSON.stringify({ node: { id: 'envoy-2', cluster: 'edge' } }),
    });
    const text = await res.text();
    assert.equal(res.status, 200, text);
    assert.ok(((JSON.parse(text) as { resources?: unknown[] }).resources ?? []).length > 0, text);
    assert.match(text, /web/);
    const clients = (await (await fetch(`${hub.httpUrl}/v1/xds/clients`)).json()) as Array<{
      node: { id: string } | null;
    }>;
    assert.deepEqual(
      clients.map((c) => c.node?.id),
      ['envoy-1'],
    );
  } finally {
    ads.close();
    await ads.status;
  }
});
