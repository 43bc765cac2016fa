// ACL test helpers: a hub with ACLs on (default deny) and a management token,
// requests with a token, and one call that makes a policy plus a token for it.

import type { Config } from '../../src/config';
import { ALL_PARTS, type Hub } from '../../src/hub';
import { type Answer, call, startHub } from '../helpers/hub';

export const ROOT = '11111111-2222-4333-8444-555555555555';

export function aclHub(overrides: Partial<Config> = {}): Promise<Hub> {
  // The whole hub (Subscribe and xDS too), so every route and stream is under ACLs.
  return startHub(
    { aclEnabled: true, aclDefaultPolicy: 'deny', aclInitialManagementToken: ROOT, ...overrides },
    { parts: ALL_PARTS, grpcGraceMs: 100 },
  );
}

/** One request through app.inject() with a token in X-Consul-Token (or none). */
export function as(
  hub: Hub,
  token: string | undefined,
  method: string,
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return call(hub, method, url, body, { ...(token === undefined ? {} : { 'x-consul-token': token }), ...headers });
}

let policies = 0;

/** Creates a policy with `rules` and a token linking it; returns the token's SecretID and AccessorID. */
export async function tokenWith(
  hub: Hub,
  rules: string,
  extra: Record<string, unknown> = {},
): Promise<{ secret: string; accessor: string; policyId: string }> {
  const p = await as(hub, ROOT, 'PUT', '/v1/acl/policy', { Name: `p-${++policies}-${Date.now()}`, Rules: rules });
  if (p.status !== 200) throw new Error(`policy: ${p.status} ${p.text}`);
  const t = await as(hub, ROOT, 'PUT', '/v1/acl/token', {
    Description: 'test',
    Policies: [{ ID: p.json.ID }],
    ...extra,
  });
  if (t.status !== 200) throw new Error(`token: ${t.status} ${t.text}`);
  return { secret: t.json.SecretID, accessor: t.json.AccessorID, policyId: p.json.ID };
}

export function registerBody(node: string, service: string, id = service) {
  return { Node: node, Address: '10.0.0.1', Service: { Service: service, ID: id, Port: 80 } };
}

/** Adds `x-consul-token` to every gRPC service of an Envoy bootstrap's xDS config sources (its initial_metadata, as Consul's bootstraps do). */
export function withToken(bootstrap: Record<string, any>, token: string): Record<string, any> {
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(visit);
    else if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if (o['envoy_grpc']) o['initial_metadata'] = [{ key: 'x-consul-token', value: token }];
      Object.values(o).forEach(visit);
    }
  };
  const copy = JSON.parse(JSON.stringify(bootstrap)) as Record<string, unknown>;
  visit(copy['dynamic_resources']);
  return copy;
}
