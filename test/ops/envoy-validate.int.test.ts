// Envoy's own validation of what a change would push (src/ops/envoy-validate.ts):
// a real Envoy (`--mode validate`) takes the hub's translation of a clean
// configuration, and rejects, with its own message and the resources named, a
// router regex RE2 parses (so the write takes it) but Envoy refuses for its
// program size. validateChanges sends only what a diff adds or changes.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLogger } from '../../src/logger';
import type { NodeResources } from '../../src/ops/diff';
import { envoyMessage, envoyValidate, type ValidatedResource, validateChanges } from '../../src/ops/envoy-validate';
import { translateOffline } from '../../src/ops/translate';
import { encodeXdsResource } from '../../src/xds/translate/encode';
import { TypeUrl } from '../../src/xds/transport/type-urls';
import { envoyBinary } from '../helpers/envoy';

const envoy = envoyBinary();

const REGISTRATIONS = [
  { Node: 'n1', Address: '10.0.0.1', Service: { Service: 'web', Port: 80 } },
  { Node: 'n1', Address: '10.0.0.1', Service: { Service: 'api', Port: 81 } },
  { Node: 'gw', Address: '10.0.0.9', Service: { Service: 'ingress', Kind: 'ingress-gateway', Port: 8443 } },
];

async function gatewayResources(pathRegex: string): Promise<ValidatedResource[]> {
  const entries = [
    { Kind: 'service-defaults', Name: 'web', Protocol: 'http' },
    {
      Kind: 'service-router',
      Name: 'web',
      Routes: [{ Match: { HTTP: { PathRegex: pathRegex } }, Destination: { Service: 'api' } }],
    },
    {
      Kind: 'ingress-gateway',
      Name: 'ingress',
      Listeners: [{ Port: 8080, Protocol: 'http', Services: [{ Name: 'web' }] }],
    },
  ];
  const node = { id: 'gw-1', cluster: 'ingress', userAgent: 'envoy', clientFeatures: [] };
  const [config] = await translateOffline({ entries, registrations: REGISTRATIONS }, [node], {
    logger: createLogger('silent'),
  });
  return Object.entries(config!.resources).flatMap(([type, byName]) =>
    Object.entries(byName).map(([name, r]) => ({
      type: type as ValidatedResource['type'],
      name,
      resource: r.resource,
    })),
  );
}

test("Envoy takes the translation of a clean configuration: clusters, endpoints, the gateway's listener and every route", async () => {
  const resources = await gatewayResources('/api/.*');
  assert.ok(['clusters', 'endpoints', 'listeners', 'routes'].every((t) => resources.some((r) => r.type === t)));
  const verdict = await envoyValidate(envoy, resources);
  assert.deepEqual(verdict.ok ? 'ok' : verdict.rejected, 'ok');
});

test("a regex over Envoy's program size is rejected with Envoy's message, naming each route that carries it", async () => {
  const verdict = await envoyValidate(envoy, await gatewayResources('/api/.{1,1000}'));
  assert.equal(verdict.ok, false);
  if (verdict.ok) return;
  assert.deepEqual(
    verdict.rejected.map((r) => `${r.type} ${r.name}`),
    ['routes ingress:8080', 'routes web'],
  );
  for (const r of verdict.rejected)
    assert.match(r.message, /^regex '\/api\/\.\{1,1000\}' RE2 program size of \d+ > max program size of 100/);
});

test('validateChanges passes only what the diff adds or changes; nothing changed is ok without running Envoy', async () => {
  const bad = encodeXdsResource(TypeUrl.RouteConfiguration, 'bad', {
    name: 'bad',
    virtual_hosts: [
      {
        name: 'v',
        domains: ['*'],
        routes: [{ match: { safe_regex: { regex: '.{1,500}' } }, route: { cluster: 'x' } }],
      },
    ],
  });
  const good = encodeXdsResource(TypeUrl.RouteConfiguration, 'good', {
    name: 'good',
    virtual_hosts: [{ name: 'v', domains: ['*'], routes: [{ match: { prefix: '/' }, route: { cluster: 'x' } }] }],
  });
  const after: NodeResources = {
    clusters: new Map(),
    endpoints: new Map(),
    listeners: new Map(),
    routes: new Map([
      ['bad', bad],
      ['good', good],
    ]),
  };
  const changedGood = await validateChanges(envoy, after, {
    added: [{ type: 'routes', name: 'good', version: good.version }],
    removed: [],
    changed: [],
  });
  assert.equal(changedGood.ok, true, 'the unchanged bad route is not sent');
  const changedBad = await validateChanges(envoy, after, {
    added: [],
    removed: [],
    changed: [{ type: 'routes', name: 'bad', from: 'x', to: bad.version, fields: [] }],
  });
  assert.equal(changedBad.ok, false);
  if (!changedBad.ok)
    assert.deepEqual(
      changedBad.rejected.map((r) => r.name),
      ['bad'],
    );
  assert.deepEqual(
    await validateChanges(envoy, after, {
      added: [],
      removed: [{ type: 'routes', name: 'bad', version: 'v' }],
      changed: [],
    }),
    { ok: true, ms: 0 },
  );
});

test("envoyMessage takes Envoy's reason out of its log line", () => {
  const line =
    "[2026-12-02 05:52:41.488][1][critical][main] [source/server/config_validation/server.cc:76] error initializing configuration '/tmp/b.json': invalid perl operator: (?=";
  assert.equal(envoyMessage(line), 'invalid perl operator: (?=');
});
