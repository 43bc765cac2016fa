// Every HTTP route and how ACLs govern it. With ACLs on, a route missing here
// answers 403 (fail closed), and test/acl/routes.test.ts fails for a route
// registered without an entry — so a new endpoint cannot slip in unchecked.
import type { Right } from '../acl/write-rights';

export type RouteRule =
  /** Open to anyone, as in Consul (leader, peers, datacenters). */
  | 'public'
  /** The handler checks rights itself (requireAccess / filterRead / authorizeWrite). */
  | 'checked'
  /** The gate checks this one right before the handler runs. */
  | Right;

export const ROUTE_RULES: Readonly<Record<string, RouteRule>> = {
  'GET /v1/status/leader': 'public',
  'GET /v1/status/peers': 'public',
  'GET /v1/catalog/datacenters': 'public',
  'PUT /v1/catalog/register': 'checked',
  'PUT /v1/catalog/deregister': 'checked',
  'GET /v1/catalog/services': 'checked',
  'GET /v1/catalog/service/:name': 'checked',
  'GET /v1/catalog/connect/:name': 'checked',
  'GET /v1/catalog/nodes': 'checked',
  'GET /v1/catalog/node/:name': 'checked',
  'GET /v1/catalog/node-services/:name': 'checked',
  'GET /v1/catalog/gateway-services/:name': 'checked',
  'GET /v1/health/service/:name': 'checked',
  'GET /v1/health/connect/:name': 'checked',
  'GET /v1/health/ingress/:name': 'checked',
  'GET /v1/health/checks/:name': 'checked',
  'GET /v1/health/node/:name': 'checked',
  'GET /v1/health/state/:state': 'checked',
  'PUT /v1/agent/service/register': 'checked',
  'PUT /v1/agent/service/deregister/:id': 'checked',
  'PUT /v1/agent/check/pass/:id': 'checked',
  'PUT /v1/agent/check/warn/:id': 'checked',
  'PUT /v1/agent/check/fail/:id': 'checked',
  'PUT /v1/agent/check/update/:id': 'checked',
  'PUT /v1/agent/check/register': 'checked',
  'PUT /v1/agent/check/deregister/:id': 'checked',
  'PUT /v1/agent/maintenance': 'checked',
  'PUT /v1/agent/service/maintenance/:id': 'checked',
  'GET /v1/agent/services': 'checked',
  'GET /v1/agent/checks': 'checked',
  'GET /v1/agent/members': 'checked',
  'GET /v1/agent/self': 'checked',
  'GET /v1/agent/health/service/id/:id': 'checked',
  'GET /v1/agent/health/service/name/:name': 'checked',
  'PUT /v1/config': 'checked',
  'GET /v1/config/:kind': 'checked',
  'GET /v1/config/:kind/:name': 'checked',
  'DELETE /v1/config/:kind/:name': 'checked',
  'PUT /v1/txn': 'checked',
  'GET /metrics': { resource: 'operator', level: 'read' },
  'GET /v1/xds/clients': { resource: 'operator', level: 'read' },
  'GET /v1/xds/config/:node': { resource: 'operator', level: 'read' },
  // Operator tools (docs/operator-tools.md): reading them is operator:read, acting on rollouts operator:write.
  'GET /v1/xds/nodes': { resource: 'operator', level: 'read' },
  'GET /v1/xds/history/:node': { resource: 'operator', level: 'read' },
  'GET /v1/xds/diff/:node': { resource: 'operator', level: 'read' },
  'GET /v1/xds/rollouts': { resource: 'operator', level: 'read' },
  'GET /v1/xds/rollouts/:id': { resource: 'operator', level: 'read' },
  'POST /v1/xds/rollouts/:id/rollback': { resource: 'operator', level: 'write' },
  'POST /v1/xds/rollouts/:id/proceed': { resource: 'operator', level: 'write' },
  'GET /v1/ops/events': { resource: 'operator', level: 'read' },
  'POST /v1/ops/dry-run': { resource: 'operator', level: 'read' },
  // The UI's static files; what it shows comes from the APIs above, under the token it sends.
  'GET /ui': 'public',
  'GET /ui/': 'public',
  'GET /ui/:file': 'public',
  'PUT /v1/acl/bootstrap': 'public',
  'PUT /v1/acl/token': 'checked',
  'GET /v1/acl/token/self': 'checked',
  'GET /v1/acl/token/:id': 'checked',
  'PUT /v1/acl/token/:id': 'checked',
  'PUT /v1/acl/token/:id/clone': 'checked',
  'DELETE /v1/acl/token/:id': 'checked',
  'GET /v1/acl/tokens': 'checked',
  'PUT /v1/acl/policy': 'checked',
  'GET /v1/acl/policy/:id': 'checked',
  'GET /v1/acl/policy/name/:name': 'checked',
  'PUT /v1/acl/policy/:id': 'checked',
  'DELETE /v1/acl/policy/:id': 'checked',
  'GET /v1/acl/policies': 'checked',
  // The mesh (docs/mesh.md), as Consul governs it: the trust bundle is public; the CA's
  // configuration is operator:read/write; a leaf needs service:write on its service;
  // intentions need intention:read/write on their destination.
  'GET /v1/connect/ca/roots': 'public',
  'GET /v1/agent/connect/ca/roots': 'public',
  'GET /v1/connect/ca/configuration': { resource: 'operator', level: 'read' },
  'PUT /v1/connect/ca/configuration': { resource: 'operator', level: 'write' },
  'GET /v1/agent/connect/ca/leaf/:service': 'checked',
  'GET /v1/connect/intentions': 'checked',
  'POST /v1/connect/intentions': 'checked',
  'GET /v1/connect/intentions/exact': 'checked',
  'PUT /v1/connect/intentions/exact': 'checked',
  'DELETE /v1/connect/intentions/exact': 'checked',
  'GET /v1/connect/intentions/match': 'checked',
  'GET /v1/connect/intentions/check': 'checked',
  'GET /v1/connect/intentions/:id': 'checked',
  'PUT /v1/connect/intentions/:id': 'checked',
  'DELETE /v1/connect/intentions/:id': 'checked',
  'POST /v1/agent/connect/authorize': 'checked',
  // REST xDS: the node's token decides what it gets (src/acl/xds.ts), as on gRPC.
  'POST /v3/discovery::clusters': 'checked',
  'POST /v3/discovery::endpoints': 'checked',
  'POST /v3/discovery::listeners': 'checked',
  'POST /v3/discovery::routes': 'checked',
};
