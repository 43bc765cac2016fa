// Node-aware resources over a real Delta ADS stream: an Envoy whose node.cluster
// (else node.id) names an ingress gateway gets that gateway's listeners on a
// wildcard LDS subscription and their routes by name; any other Envoy gets no
// listener at all by wildcard (API listeners are for gRPC clients that name them).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { lookupType } from '../../../src/xds/transport/envoy-proto';
import { TypeUrl } from '../../../src/xds/transport/type-urls';
import { startXdsHub, type XdsHub } from './harness';

const Req = lookupType('envoy.service.discovery.v3.DeltaDiscoveryRequest');
const Res = lookupType('envoy.service.discovery.v3.DeltaDiscoveryResponse');
const METHOD = '/envoy.service.discovery.v3.AggregatedDiscoveryService/DeltaAggregatedResources';

interface Response {
  typeUrl: string;
  nonce: string;
  resources: { name: string; resource: { value: Uint8Array } }[];
  removedResources: string[];
}

/** A minimal Envoy-like Delta ADS client: subscribes, ACKs everything, collects what it holds per type. */
function envoyLike(port: number, node: { id: string; cluster: string }) {
  const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  const call = client.makeBidiStreamRequest(
    METHOD,
    (m: Record<string, unknown>) => Buffer.from(Req.encode(Req.fromObject(m)).finish()),
    (b: Buffer) => Res.toObject(Res.decode(b), { defaults: true }) as unknown as Response,
  );
  const held = new Map<string, Map<string, Uint8Array>>();
  const listeners = new Set<() => void>();
  call.on('data', (r: Response) => {
    const m = held.get(r.typeUrl) ?? new Map<string, Uint8Array>();
    for (const res of r.resources) m.set(res.name, res.resource.value);
    for (const n of r.removedResources) m.delete(n);
    held.set(r.typeUrl, m);
    call.write({ typeUrl: r.typeUrl, responseNonce: r.nonce });
    for (const l of listeners) l();
  });
  call.on('error', () => {});
  let first = true;
  const subscribe = (typeUrl: string, names: string[]) => {
    call.write({
      ...(first ? { node: { ...node, userAgentName: 'envoy' } } : {}),
      typeUrl,
      resourceNamesSubscribe: names,
    });
    first = false;
  };
  /** Resolves when `pred` holds on what the client holds; rejects after capMs. */
  const until = (pred: () => boolean, what: string, capMs = 60_000) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!pred()) return;
        listeners.delete(check);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        listeners.delete(check);
        reject(
          new Error(
            `${node.id}: ${what} not reached; holds ${JSON.stringify([...held].map(([t, m]) => [t, [...m.keys()]]))}`,
          ),
        );
      }, capMs);
      listeners.add(check);
      check();
    });
  const names = (typeUrl: string) => [...(held.get(typeUrl)?.keys() ?? [])].sort();
  return {
    subscribe,
    until,
    names,
    held,
    close: () => {
      call.cancel();
      client.close();
    },
  };
}

let hub: XdsHub;
before(async () => {
  hub = await startXdsHub();
  await hub.put('/v1/catalog/register', {
    Node: 'n1',
    Address: '10.0.0.1',
    Service: { ID: 'web-1', Service: 'web', Port: 8080 },
  });
  await hub.put('/v1/config', {
    Kind: 'ingress-gateway',
    Name: 'edge',
    Listeners: [{ Port: 8443, Protocol: 'http', Services: [{ Name: 'web' }] }],
  });
});
after(async () => {
  await hub?.close();
});

test('gateway Envoy (node.cluster = gateway) gets its listener on wildcard LDS and its route by name; another Envoy gets none', async () => {
  const gw = envoyLike(hub.hub.grpcPort, { id: 'envoy-edge-1', cluster: 'edge' });
  const other = envoyLike(hub.hub.grpcPort, { id: 'envoy-plain', cluster: 'plain' });
  try {
    for (const c of [gw, other]) {
      c.subscribe(TypeUrl.Cluster, ['*']);
      c.subscribe(TypeUrl.Listener, ['*']);
    }
    await gw.until(() => gw.names(TypeUrl.Listener).includes('edge:8443'), 'gateway listener');
    assert.deepEqual(gw.names(TypeUrl.Listener), ['edge:8443'], 'no API listener in a wildcard LDS');
    await other.until(() => other.names(TypeUrl.Cluster).includes('web'), 'clusters by wildcard');
    assert.deepEqual(other.names(TypeUrl.Listener), []);
    gw.subscribe(TypeUrl.RouteConfiguration, ['edge:8443']);
    await gw.until(() => gw.names(TypeUrl.RouteConfiguration).includes('edge:8443'), 'gateway route');
    const rc = lookupType('envoy.config.route.v3.RouteConfiguration').decode(
      gw.held.get(TypeUrl.RouteConfiguration)!.get('edge:8443')!,
    ) as unknown as {
      virtualHosts: { domains: string[]; routes: { route: { cluster: string } }[] }[];
    };
    assert.deepEqual(rc.virtualHosts[0]!.domains, ['web.ingress.*']);
    assert.equal(rc.virtualHosts[0]!.routes.at(-1)!.route.cluster, 'web');

    // node.id names the gateway when node.cluster is empty.
    const byId = envoyLike(hub.hub.grpcPort, { id: 'edge', cluster: '' });
    try {
      byId.subscribe(TypeUrl.Listener, ['*']);
      await byId.until(() => byId.names(TypeUrl.Listener).includes('edge:8443'), 'gateway listener by node.id');
    } finally {
      byId.close();
    }

    // A new gateway listener reaches the gateway Envoy only.
    await hub.put('/v1/config', {
      Kind: 'ingress-gateway',
      Name: 'edge',
      Listeners: [
        { Port: 8443, Protocol: 'http', Services: [{ Name: 'web' }] },
        { Port: 9000, Protocol: 'tcp', Services: [{ Name: 'web' }] },
      ],
    });
    await gw.until(() => gw.names(TypeUrl.Listener).includes('edge:9000'), 'second gateway listener');
    assert.deepEqual(other.names(TypeUrl.Listener), []);
    const nacks = (await hub.xds.metrics.nacks.get()).values.reduce((s, v) => s + v.value, 0);
    assert.equal(nacks, 0);
  } finally {
    gw.close();
    other.close();
  }
});
