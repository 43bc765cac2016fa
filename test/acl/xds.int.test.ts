// xDS under ACLs with a real Envoy: the token travels in gRPC metadata
// x-consul-token (the bootstrap's initial_metadata, as Consul's bootstraps do);
// an Envoy whose token reads two of five services receives exactly those two
// clusters; deleting the token ends its stream and its reconnects are refused.

import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { bootstrapFor } from '../envoy/harness';
import { startEnvoy } from '../helpers/envoy';
import { aclHub, as, ROOT, tokenWith, withToken } from './helpers';

const cleanups: (() => Promise<unknown>)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

function clusterNames(dump: any): string[] {
  const configs = dump.configs.find((c: any) => c['@type'].endsWith('ClustersConfigDump'));
  return (configs?.dynamic_active_clusters ?? []).map((c: any) => c.cluster.name).sort();
}

test('an Envoy whose token reads two of five services gets exactly those two; deleting the token ends its stream', async () => {
  const hub = await aclHub();
  cleanups.push(() => hub.close());
  for (const [i, name] of ['alpha', 'bravo', 'charlie', 'delta', 'echo'].entries()) {
    const r = await as(hub, ROOT, 'PUT', '/v1/catalog/register', {
      Node: 'n1',
      Address: '127.0.0.1',
      Service: { Service: name, Port: 9000 + i },
    });
    assert.equal(r.status, 200, r.text);
  }
  const t = await tokenWith(hub, 'service "bravo" { policy = "read" }\nservice "delta" { policy = "read" }');
  const envoy = await startEnvoy({
    bootstrap: withToken(bootstrapFor(hub, 'delta-ads', { id: 'acl-envoy', cluster: 'acl-envoy' }), t.secret),
  });
  cleanups.push(() => envoy.stop());
  await envoy.until(async () => clusterNames(await envoy.configDump()).length === 2, 'two clusters');
  assert.deepEqual(clusterNames(await envoy.configDump()), ['bravo', 'delta']);
  const stream = async () =>
    ((await as(hub, ROOT, 'GET', '/v1/xds/clients')).json as Array<{ node?: { id: string } }>).filter(
      (c) => c.node?.id === 'acl-envoy',
    );
  assert.equal((await stream()).length, 1);

  assert.equal((await as(hub, ROOT, 'DELETE', `/v1/acl/token/${t.accessor}`)).status, 200);
  let last: unknown;
  await envoy.until(
    async () => {
      last = await stream();
      return (last as unknown[]).length === 0 || undefined;
    },
    () => `the stream to end: ${JSON.stringify(last)}`,
  );
  // Envoy reconnects; every attempt is refused, so no stream of that node stays open.
  // Envoy logs the status: 7 is PERMISSION_DENIED, with the hub's "ACL not found" (URL-encoded).
  await envoy.until(
    async () => /config stream to xdshub closed: 7, ACL%20not%20found/.test(envoy.log()) || undefined,
    'Envoy to log the refusal',
    15_000,
  );
  assert.equal((await stream()).length, 0);
});
