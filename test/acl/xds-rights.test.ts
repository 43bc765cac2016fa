// The right each xDS resource needs (src/acl/xds-rights.ts), case by case:
// a leaf needs write on its service whoever asks, the bundle is public, an
// unknown secret is refused; a sidecar's own resources come with the stream,
// its upstreams' need read on the upstream; plain nodes read by service name.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createAuthorizer } from '../../src/acl/authorizer';
import { emptyRules } from '../../src/acl/rules';
import { leafServiceOf, meshPlainCluster, missingWrite, resourceVisible } from '../../src/acl/xds-rights';
import type { XdsIdentity } from '../../src/acl/xds-roles';
import { TypeUrl } from '../../src/xds/transport/type-urls';

const TD = '0b5e7c4e-1111-4222-8333-444455556666.consul';
const ctx = { datacenter: 'dc1' };
const leaf = (s: string) => `spiffe://${TD}/ns/default/dc/dc1/svc/${s}`;
const mesh = (c: string) => `${c}.default.dc1.internal.${TD}`;

function authz(
  service: Record<string, 'read' | 'write' | 'deny'>,
  prefix: Record<string, 'read' | 'write' | 'deny'> = {},
) {
  return createAuthorizer(
    { ...emptyRules(), service, service_prefix: prefix },
    { accessorId: 'a', defaultPolicy: 'deny' },
  );
}

const web: XdsIdentity = {
  fronts: ['web'],
  because: ['connect-proxy "web1-sidecar-proxy" of "web"'],
  sidecar: true,
  upstreams: ['db', 'db-replica'],
};

test('names: a leaf’s service, a mesh cluster’s chain cluster', () => {
  assert.equal(leafServiceOf(leaf('db')), 'db');
  assert.equal(leafServiceOf(`spiffe://${TD}`), undefined);
  assert.equal(leafServiceOf(`${leaf('db')}/x`), undefined);
  assert.equal(meshPlainCluster(mesh('db'), 'dc1'), 'db');
  assert.equal(meshPlainCluster(mesh('v2.db'), 'dc1'), 'v2.db');
  assert.equal(meshPlainCluster(mesh('db'), 'dc2'), undefined);
  assert.equal(meshPlainCluster('db', 'dc1'), undefined);
});

test('secrets: a leaf needs write on its service for every node; the bundle is public; others are refused', () => {
  const readAll = authz({}, { '': 'read' });
  const webWrite = authz({ web: 'write' });
  for (const who of [undefined, web]) {
    assert.equal(resourceVisible(TypeUrl.Secret, leaf('db'), readAll, who, ctx), false);
    assert.equal(resourceVisible(TypeUrl.Secret, leaf('web'), webWrite, who, ctx), true);
    assert.equal(resourceVisible(TypeUrl.Secret, leaf('db'), webWrite, who, ctx), false);
    assert.equal(resourceVisible(TypeUrl.Secret, `spiffe://${TD}`, authz({}), who, ctx), true);
    assert.equal(resourceVisible(TypeUrl.Secret, 'some-secret', readAll, who, ctx), false);
  }
});

test('a sidecar: its own resources with the stream, an upstream’s with read on that upstream', () => {
  const webOnly = authz({ web: 'write' });
  const withDb = authz({ web: 'write', db: 'read' });
  assert.equal(resourceVisible(TypeUrl.Listener, 'public_listener:10.0.0.1:21000', webOnly, web, ctx), true);
  assert.equal(resourceVisible(TypeUrl.Cluster, 'local_app', webOnly, web, ctx), true);
  const upstream = [
    [TypeUrl.Listener, 'db:127.0.0.1:9191'],
    [TypeUrl.RouteConfiguration, 'db'],
    [TypeUrl.Cluster, mesh('db')],
    [TypeUrl.ClusterLoadAssignment, mesh('db')],
  ] as const;
  for (const [type, name] of upstream) {
    assert.equal(resourceVisible(type, name, webOnly, web, ctx), false, `${name} without read on db`);
    assert.equal(resourceVisible(type, name, withDb, web, ctx), true, `${name} with read on db`);
  }
  // The longest upstream name wins: db-replica's listener needs read on db-replica, not db.
  assert.equal(resourceVisible(TypeUrl.Listener, 'db-replica:127.0.0.1:9192', withDb, web, ctx), false);
  // A listener that is neither public nor an upstream of this proxy is refused.
  assert.equal(resourceVisible(TypeUrl.Listener, 'cache:127.0.0.1:9193', authz({}, { '': 'read' }), web, ctx), false);
  assert.equal(
    resourceVisible(TypeUrl.Cluster, 'db', withDb, web, ctx),
    false,
    'a plain cluster is no sidecar resource',
  );
});

test('plain nodes read by service name (a gateway’s `<gateway>:<port>` by the gateway)', () => {
  const a = authz({ api: 'read', ig: 'read' });
  assert.equal(resourceVisible(TypeUrl.Cluster, 'api', a, undefined, ctx), true);
  assert.equal(resourceVisible(TypeUrl.Cluster, 'db', a, undefined, ctx), false);
  assert.equal(resourceVisible(TypeUrl.Listener, 'ig:8443', a, undefined, ctx), true);
  assert.equal(
    resourceVisible(TypeUrl.Cluster, 'local_app', authz({ local_app: 'deny' }, { '': 'read' }), undefined, ctx),
    false,
  );
});

test('a proxy or gateway node needs write on everything it fronts', () => {
  const two: XdsIdentity = { ...web, fronts: ['web', 'ig'] };
  assert.equal(missingWrite(authz({ web: 'write' }), web), undefined);
  assert.equal(missingWrite(authz({ web: 'read' }, { '': 'read' }), web), 'web');
  assert.equal(missingWrite(authz({ web: 'write' }), two), 'ig');
});
