// Who an xDS node is (src/acl/xds-roles.ts), kept from the catalog's events:
// a connect-proxy's service ID is that proxy (with what it fronts and its
// upstreams), an ingress-gateway entry or a gateway-kind service names a
// gateway; deregistering ends it; a check's change does not count as a move.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createXdsRoles, type XdsRoles } from '../../src/acl/xds-roles';
import type { Hub } from '../../src/hub';
import { call, startHub } from '../helpers/hub';

let hub: Hub;
let roles: XdsRoles;
const moves: string[][] = [];
before(async () => {
  hub = await startHub({ nodeName: 'roles' });
  roles = createXdsRoles(hub.catalog);
  roles.onChange((ids, gws) => moves.push([...ids, ...[...gws].map((g) => `gw:${g}`)]));
});
after(async () => {
  roles?.close();
  await hub?.close();
});

const node = (id: string, cluster = '') => ({ id, cluster });

async function ok(method: string, url: string, body?: unknown): Promise<void> {
  const r = await call(hub, method, url, body);
  assert.equal(r.status, 200, r.text);
}

test('a registered sidecar is its proxy: what it fronts and its upstreams; deregistering ends it', async () => {
  assert.equal(roles.identityOf(node('web1-sidecar-proxy')), undefined);
  await ok('PUT', '/v1/agent/service/register', {
    Name: 'web',
    ID: 'web1',
    Port: 8080,
    Check: { TTL: '30s' },
    Connect: { SidecarService: { Proxy: { Upstreams: [{ DestinationName: 'db', LocalBindPort: 9191 }] } } },
  });
  const who = roles.identityOf(node('web1-sidecar-proxy'))!;
  assert.deepEqual(who.fronts, ['web']);
  assert.equal(who.sidecar, true);
  assert.deepEqual(who.upstreams, ['db']);
  assert.equal(roles.identityOf(node('web1')), undefined, 'the app itself is no proxy');
  assert.ok(moves.some((m) => m.includes('web1-sidecar-proxy')));
  const before = moves.length;
  await ok('PUT', '/v1/agent/check/pass/service:web1');
  assert.equal(moves.length, before, 'a check’s change moves no identity');
  assert.equal(roles.identityOf(node('web1-sidecar-proxy')), who, 'the same object while nothing moves');
  await ok('PUT', '/v1/agent/service/deregister/web1');
  assert.equal(roles.identityOf(node('web1-sidecar-proxy')), undefined);
});

test('gateways: an ingress-gateway entry (by node.cluster, else node.id) and gateway-kind services (by name or ID)', async () => {
  await ok('PUT', '/v1/config', { Kind: 'ingress-gateway', Name: 'ig', Listeners: [] });
  assert.deepEqual(roles.identityOf(node('any-envoy', 'ig'))?.fronts, ['ig']);
  assert.deepEqual(roles.identityOf(node('ig'))?.fronts, ['ig']);
  assert.equal(roles.identityOf(node('ig', 'other')), undefined, 'node.cluster wins over node.id');
  assert.ok(moves.some((m) => m.includes('gw:ig')));
  await ok('DELETE', '/v1/config/ingress-gateway/ig');
  assert.equal(roles.identityOf(node('any-envoy', 'ig')), undefined);
  const tgw = { Kind: 'terminating-gateway', Service: 'tgw', ID: 'tgw-1', Port: 8443 };
  await ok('PUT', '/v1/catalog/register', { Node: 'n1', Address: '10.0.0.1', Service: tgw });
  assert.deepEqual(roles.identityOf(node('tgw-1'))?.fronts, ['tgw']);
  assert.deepEqual(roles.identityOf(node('x', 'tgw'))?.fronts, ['tgw']);
  assert.equal(roles.identityOf(node('tgw-1'))?.sidecar, false);
  await ok('PUT', '/v1/catalog/deregister', { Node: 'n1', ServiceID: 'tgw-1' });
  assert.equal(roles.identityOf(node('tgw-1')), undefined);
  assert.equal(roles.identityOf(node('x', 'tgw')), undefined);
});
