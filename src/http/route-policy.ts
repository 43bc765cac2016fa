// How each HTTP route is governed, declared on the route itself (fastify's
// route `config`), as fastify routes carry their own policy: the ACL rule the
// gate applies (`acl`) and whether the route takes ?dry-run=true and
// X-Xdshub-Rollout (`dryRun`). One onRoute hook records every route's policy,
// so the ACL gate (acl.ts), the dry-run hook (ops/http.ts) and the coverage
// test read one source; a route registered without an `acl` rule answers 403
// with ACLs on (fail closed), and test/acl/http-enforcement.int.test.ts fails.
import type { FastifyInstance } from 'fastify';
import type { Level, Resource } from '../acl/authorizer';
import type { Right } from '../acl/write-rights';

export type RouteRule =
  /** Open to anyone, as in Consul (leader, peers, datacenters). */
  | 'public'
  /** The handler checks rights itself (requireAccess / filterRead / authorizeWrite). */
  | 'checked'
  /** The gate checks this one right before the handler runs. */
  | Right;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's ACL rule; none: 403 with ACLs on. */
    acl?: RouteRule;
    /** A catalog or config write that takes ?dry-run=true and X-Xdshub-Rollout (docs/operator-tools.md). */
    dryRun?: boolean;
  }
}

export interface RoutePolicy {
  /** "METHOD url", as fastify registered it. */
  route: string;
  acl: RouteRule | undefined;
  dryRun: boolean;
}

type Options = { config: { acl: RouteRule; dryRun?: true } };

/** Route options for the common rules: `app.get(url, policy.checked, handler)`. */
export const policy = {
  public: { config: { acl: 'public' } } as Options,
  checked: { config: { acl: 'checked' } } as Options,
  /** A catalog or config write: checked by its handler, and takes dry runs and rollouts. */
  write: { config: { acl: 'checked', dryRun: true } } as Options,
  /** The gate checks this right before the handler runs. */
  needs: (resource: Resource, level: Level): Options => ({ config: { acl: { resource, level } } }),
} as const;

/** The xDS transport's HTTP routes (xds/transport/http.ts): REST discovery is checked by the xDS authorizer, the admin views need operator:read. */
export const XDS_ROUTES = { discovery: policy.checked, admin: policy.needs('operator', 'read') };

const policies = new WeakMap<FastifyInstance, RoutePolicy[]>();

/** Records the policy of every route registered on `app` from now on (HEAD aside). Call before any route. */
export function recordRoutePolicies(app: FastifyInstance): void {
  const list: RoutePolicy[] = [];
  policies.set(app, list);
  app.addHook('onRoute', (route) => {
    const config = route.config as { acl?: RouteRule; dryRun?: boolean } | undefined;
    for (const method of [route.method].flat()) {
      if (method !== 'HEAD')
        list.push({ route: `${method} ${route.url}`, acl: config?.acl, dryRun: config?.dryRun === true });
    }
  });
}

/** Every route registered on the app and its policy. */
export function routePolicies(app: FastifyInstance): readonly RoutePolicy[] {
  return policies.get(app) ?? [];
}
