// `xdshub translate` equals what a live hub sends: the same registrations and
// config entries are written to a real hub (createHub + attachHubServices, as
// `xdshub serve` wires it), Delta ADS clients connect as an Envoy, a gRPC
// client and an ingress gateway, and what each holds once ACKed equals the
// offline translation's names and versions (a version is the SHA-256 of the
// encoded resource, so equal versions are equal bytes). The CLI prints the same.

import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createLogger } from '../../src/logger';
import { parseDocuments } from '../../src/ops/analyze/documents';
import { type NodeConfig, TranslateError, translateOffline } from '../../src/ops/translate';
import type { XdsNode } from '../../src/xds/transport/provider';
import { TypeUrl } from '../../src/xds/transport/type-urls';
import { call, REPO_ROOT } from '../helpers/hub';
import { execFileTracked } from '../helpers/procs';
import { tmpDir } from '../helpers/tmp';
import { until } from '../helpers/until';
import { type Plain, ScriptedClient } from '../xds/transport/helpers/client';
import { type OpsHub, startOpsHub } from './helpers';

const REGISTRATIONS = [
  { Node: 'n1', Address: '10.0.0.1', Service: { Service: 'web', ID: 'web-1', Port: 8080 } },
  { Node: 'n2', Address: '10.0.0.2', Service: { Service: 'web', ID: 'web-2', Port: 8080, Meta: { version: 'v2' } } },
  { Node: 'n2', Address: '10.0.0.2', Service: { Service: 'api', ID: 'api-1', Port: 9090 } },
  { Node: 'gw', Address: '10.0.0.9', Service: { Service: 'ingress', Kind: 'ingress-gateway', Port: 8443 } },
];
const ROUTER_HCL = `Kind = "service-router"
Name = "web"
Routes = [{ Match = { HTTP = { PathPrefix = "/api" } }, Destination = { Service = "api" } }]
`;
const ENTRIES = [
  { Kind: 'service-defaults', Name: 'web', Protocol: 'http' },
  { Kind: 'service-defaults', Name: 'api', Protocol: 'http' },
  { Kind: 'service-resolver', Name: 'web', Subsets: { v2: { Filter: 'Service.Meta.version == v2' } } },
  {
    Kind: 'service-splitter',
    Name: 'web',
    Splits: [
      { Weight: 80, Service: 'web' },
      { Weight: 20, Service: 'web', ServiceSubset: 'v2' },
    ],
  },
  {
    Kind: 'ingress-gateway',
    Name: 'ingress',
    Listeners: [{ Port: 8080, Protocol: 'http', Services: [{ Name: 'web' }] }],
  },
];
const NODES: XdsNode[] = [
  { id: 'envoy-1', cluster: 'envoy-1', userAgent: 'envoy', clientFeatures: [] },
  { id: 'grpc-1', cluster: 'grpc-1', userAgent: 'grpc-node-js', clientFeatures: [] },
  { id: 'gw-1', cluster: 'ingress', userAgent: 'envoy', clientFeatures: [] },
];
const TYPES = [
  ['clusters', TypeUrl.Cluster],
  ['endpoints', TypeUrl.ClusterLoadAssignment],
  ['listeners', TypeUrl.Listener],
  ['routes', TypeUrl.RouteConfiguration],
] as const;

let hub: OpsHub;
let dir: { path: string; cleanup(): Promise<void> };
let files: string[];
let offline: NodeConfig[];

before(async () => {
  dir = await tmpDir('xdshub-translate');
  files = [join(dir.path, 'registrations.json'), join(dir.path, 'entries.json'), join(dir.path, 'router.hcl')];
  writeFileSync(files[0]!, JSON.stringify(REGISTRATIONS));
  writeFileSync(files[1]!, JSON.stringify(ENTRIES));
  writeFileSync(files[2]!, ROUTER_HCL);
  const router = (await parseDocuments('router.hcl', ROUTER_HCL)).entries;
  offline = await translateOffline({ entries: [...ENTRIES, ...router], registrations: REGISTRATIONS }, NODES, {
    logger: createLogger('silent'),
  });
  hub = await startOpsHub();
  for (const r of REGISTRATIONS) assert.equal((await call(hub.hub, 'PUT', '/v1/catalog/register', r)).status, 200);
  for (const e of [...ENTRIES, ...router]) assert.equal((await call(hub.hub, 'PUT', '/v1/config', e)).status, 200);
});

after(async () => {
  await hub?.close();
  await dir?.cleanup();
});

/** A Delta ADS client as `node` that subscribes to every cluster and to the names given per type, and ACKs all. */
function liveClient(node: XdsNode, names: Record<string, string[]>) {
  const client = new ScriptedClient({
    port: hub.hub.grpcPort,
    path: '/envoy.service.discovery.v3.AggregatedDiscoveryService/DeltaAggregatedResources',
    kind: 'delta',
  });
  const held = new Map<string, Map<string, string>>(TYPES.map(([, url]) => [url, new Map()]));
  client.send({
    node: { id: node.id, cluster: node.cluster, userAgentName: node.userAgent },
    typeUrl: TypeUrl.Cluster,
    resourceNamesSubscribe: ['*'],
  });
  for (const [rest, url] of TYPES.slice(1))
    if (names[rest]!.length > 0) client.send({ typeUrl: url, resourceNamesSubscribe: names[rest] });
  void (async () => {
    for (;;) {
      const r = await client.next();
      const map = held.get(r.typeUrl)!;
      for (const x of r.resources as Plain[]) map.set(String(x.name), String(x.version));
      for (const n of r.removedResources as string[]) map.delete(n);
      client.send({ typeUrl: r.typeUrl, responseNonce: r.nonce });
    }
  })();
  return { held, close: () => client.close() };
}

const versions = (byName: Record<string, { version: string }>) =>
  Object.fromEntries(
    Object.entries(byName)
      .map(([n, r]) => [n, r.version])
      .sort(),
  );

test('an Envoy, a gRPC client and an ingress gateway hold exactly what translate says they would receive', async () => {
  assert.deepEqual(
    offline.map((c) => c.node.id),
    NODES.map((n) => n.id),
  );
  for (const [i, node] of NODES.entries()) {
    const want = offline[i]!.resources;
    assert.ok(Object.keys(want.clusters).length >= 4, `${node.id}: web, its subset, api and ingress clusters`);
    assert.ok(Object.keys(want.routes).length > 0 && Object.keys(want.listeners).length > 0);
    const live = liveClient(node, Object.fromEntries(TYPES.map(([rest]) => [rest, Object.keys(want[rest])])));
    try {
      const held = () =>
        Object.fromEntries(TYPES.map(([rest, url]) => [rest, Object.fromEntries([...live.held.get(url)!].sort())]));
      const expected = Object.fromEntries(TYPES.map(([rest]) => [rest, versions(want[rest])]));
      await until(() => JSON.stringify(held()) === JSON.stringify(expected), {
        what: `${node.id} holds the translation`,
        timeout: 30_000,
      }).catch(() => undefined);
      assert.deepEqual(held(), expected, `${node.id}: live resources equal the offline translation`);
    } finally {
      live.close();
    }
  }
  // The flavours differ where the hub makes them differ: the gateway gets its own listeners, gRPC its own clusters' policy.
  assert.notDeepEqual(Object.keys(offline[2]!.resources.listeners), Object.keys(offline[0]!.resources.listeners));
});

test("the CLI prints the same translation; input the write would refuse is exit 1 with the write's message", async () => {
  const main = join(REPO_ROOT, 'src', 'cli', 'main.ts');
  const args = [
    '--import',
    'tsx',
    main,
    'translate',
    '--node',
    'envoy-1',
    '--node',
    'gw-1,cluster=ingress',
    '--node',
    'grpc-1,client=grpc',
    ...files,
  ];
  const { stdout } = await execFileTracked(process.execPath, args, { cwd: REPO_ROOT });
  const printed = JSON.parse(stdout) as { nodes: NodeConfig[] };
  const byId = new Map(offline.map((c) => [c.node.id, c]));
  for (const c of printed.nodes) assert.deepEqual(c.resources, byId.get(c.node.id)!.resources, c.node.id);

  const bad = join(dir.path, 'bad.json');
  writeFileSync(
    bad,
    JSON.stringify({ Kind: 'service-router', Name: 'web', Routes: [{ Match: { HTTP: { PathRegex: '(?=x)' } } }] }),
  );
  await assert.rejects(
    execFileTracked(process.execPath, [...args.slice(0, 4), '--node', 'x', files[1]!, bad], { cwd: REPO_ROOT }),
    (err: { code?: number; stderr?: string }) =>
      err.code === 1 && /Routes\[0\]\.Match\.HTTP\.PathRegex: not a valid RE2 regex/.test(err.stderr ?? ''),
  );
  await assert.rejects(
    translateOffline(
      { entries: [{ Kind: 'service-splitter', Name: 'tcp-svc', Splits: [{ Weight: 100 }] }], registrations: [] },
      [],
      { logger: createLogger('silent') },
    ),
    (err: unknown) => err instanceof TranslateError && /service-splitter\/tcp-svc/.test((err as Error).message),
  );
});
