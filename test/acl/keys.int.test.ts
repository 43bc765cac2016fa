// No private key leaves the hub but to a token that can write its service
// (docs/security.md, "Private keys"): Subscribe has no topic that carries one
// — every Subscribe event is a catalog event, and the catalog events of CA
// entries (the first root, leaf issues, a root rotation that reissues every
// leaf) carry none, on any topic, even to a management token; the CA's HTTP
// reads show no key; the leaf endpoint needs service:write.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { CatalogEvent } from '../../src/catalog/types';
import { Topic } from '../../src/catalog/types';
import type { Hub } from '../../src/hub';
import { StreamReader, subscribeClient } from '../subscribe/grpc-helpers';
import { aclHub, as, ROOT, tokenWith } from './helpers';

let hub: Hub;
before(async () => {
  hub = await aclHub({ nodeName: 'keys' });
});
after(() => hub?.close());

const KEY = /PRIVATE KEY/;

async function waitLeaves(services: string[], different?: ReadonlyMap<string, string>): Promise<void> {
  for (;;) {
    const at = hub.catalog.lastIndex();
    const leaves = hub.catalog.connectCa().leaves;
    if (services.every((s) => leaves.has(s) && leaves.get(s)!.SerialNumber !== different?.get(s))) return;
    await hub.catalog.waitForIndex(at);
  }
}

test('no catalog event, so no Subscribe topic, carries key material: leaf issues and a root rotation included', async () => {
  const events: CatalogEvent[] = [];
  const off = hub.catalog.onApplied((_i, evs) => events.push(...evs));
  const client = subscribeClient(`127.0.0.1:${hub.grpcPort}`);
  const streams: StreamReader[] = [];
  try {
    // Every topic, as the management token (wildcard where the topic allows it, else each service by name).
    const wildcard = [
      Topic.MeshConfig,
      Topic.ServiceResolver,
      Topic.IngressGateway,
      Topic.ServiceIntentions,
      Topic.ServiceList,
      Topic.ServiceDefaults,
      Topic.HTTPRoute,
      Topic.ServiceRouter,
      Topic.ServiceSplitter,
    ];
    const open = (req: Record<string, unknown>) =>
      streams.push(new StreamReader(client.Subscribe({ ...req, Token: ROOT } as never)));
    for (const t of wildcard) open({ Topic: t, WildcardSubject: true });
    for (const name of ['web', 'web-sidecar-proxy']) open({ Topic: Topic.ServiceHealth, NamedSubject: { Key: name } });
    open({ Topic: Topic.ServiceHealthConnect, NamedSubject: { Key: 'web' } });
    await Promise.all(streams.map((s) => s.subscribed()));
    const reg = await as(hub, ROOT, 'PUT', '/v1/agent/service/register', {
      Name: 'web',
      ID: 'web1',
      Port: 8080,
      Connect: { SidecarService: {} },
    });
    assert.equal(reg.status, 200, reg.text);
    await waitLeaves(['web']);
    const before = new Map([...hub.catalog.connectCa().leaves].map(([s, l]) => [s, l.SerialNumber]));
    // A root rotation (a new key) reissues every leaf.
    const fresh = await as(hub, ROOT, 'PUT', '/v1/connect/ca/configuration', {
      Provider: 'consul',
      Config: { PrivateKey: await newKeyPem() },
    });
    assert.equal(fresh.status, 200, fresh.text);
    await waitLeaves(['web'], before);
    const leafKey = hub.catalog.connectCa().leaves.get('web')!.PrivateKeyPEM;
    const keyBody = leafKey.split('\n')[1]!;
    assert.ok(events.length > 0);
    for (const e of events) {
      const text = JSON.stringify(e.payload, (_k, v) => (typeof v === 'bigint' ? String(v) : v));
      assert.doesNotMatch(text, KEY, `topic ${e.topic}`);
      assert.ok(!text.includes(keyBody), `topic ${e.topic} carries the leaf's key`);
    }
    // And what the streams carried: read everything queued so far.
    for (const s of streams) {
      while (s.pending() > 0) {
        const text = JSON.stringify(await s.next(), (_k, v) => (typeof v === 'bigint' ? String(v) : v));
        assert.doesNotMatch(text, KEY);
        assert.ok(!text.includes(keyBody));
      }
    }
  } finally {
    off();
    for (const s of streams) s.call.cancel();
    client.close();
  }
});

test('the CA’s HTTP reads carry no key; the leaf endpoint needs service:write on its service', async () => {
  const op = await tokenWith(hub, 'operator = "read"\nservice_prefix "" { policy = "read" }');
  for (const url of [
    '/v1/connect/ca/roots',
    '/v1/agent/connect/ca/roots',
    '/v1/connect/ca/roots?pem',
    '/v1/connect/ca/configuration',
  ]) {
    const r = await as(hub, op.secret, 'GET', url);
    assert.equal(r.status, 200, `${url}: ${r.text}`);
    assert.doesNotMatch(r.text, KEY, url);
  }
  assert.equal(
    (await as(hub, op.secret, 'GET', '/v1/agent/connect/ca/leaf/web')).status,
    403,
    'read everything is not write',
  );
  const web = await tokenWith(hub, 'service "web" { policy = "write" }');
  const leaf = await as(hub, web.secret, 'GET', '/v1/agent/connect/ca/leaf/web');
  assert.equal(leaf.status, 200);
  assert.match(leaf.json.PrivateKeyPEM, KEY);
});

async function newKeyPem(): Promise<string> {
  const { generateKeyPairSync } = await import('node:crypto');
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}
