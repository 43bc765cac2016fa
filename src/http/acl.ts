// ACLs on the HTTP API: the request's token (?token=, X-Consul-Token,
// Authorization: Bearer, or with --tls-client-cert-token the client
// certificate's CN as an allowed, non-management AccessorID), write checks with Consul's 403 texts, read
// filtering with X-Consul-Results-Filtered-By-ACLs, and the fail-closed rule:
// with ACLs on, a route that has not declared how it is checked answers 403.
import type { TLSSocket } from 'node:tls';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Authorizer, Level, Resource } from '../acl/authorizer';
import { permissionDenied } from '../acl/deny';
import type { AclResolver } from '../acl/resolver';
import { HubError } from '../errors';
import { tokenFromRequest } from '../request-token';
import { certTokenAuthorizer } from './cert-token';
import { recordRoutePolicies, routePolicies } from './route-policy';

export { tokenFromRequest };

/** The client certificate's subject CN, on a mutual-TLS connection. */
export function clientCertName(req: FastifyRequest): string | undefined {
  const socket = req.raw.socket as Partial<TLSSocket>;
  if (typeof socket.getPeerCertificate !== 'function' || socket.authorized !== true) return undefined;
  const cn = socket.getPeerCertificate().subject?.CN;
  return typeof cn === 'string' && cn !== '' ? cn : undefined;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's ACL state, for routes outside src/http that re-check a token later (the ops event stream). */
    xdshubAcl: HttpAcl;
  }
}

export interface HttpAcl {
  resolver: AclResolver;
  /** Map a certificate's CN to the token with that AccessorID (--tls-client-cert-token). */
  certToken: boolean;
  /** The only AccessorIDs a certificate may name (--tls-client-cert-token-allow; src/http/cert-token.ts). */
  certTokenAllow?: readonly string[];
}

/**
 * The request's authorizer, resolved now (not cached): a blocking query that
 * waited across a token's deletion calls it again and gets the 403.
 */
export function authzOf(acl: HttpAcl, req: FastifyRequest): Authorizer {
  // With ACLs off every token resolves to the same allow-all authorizer: no need to find the token.
  if (!acl.resolver.settings.enabled) return acl.resolver.resolve('');
  const token = tokenFromRequest(req);
  if (token === '' && acl.certToken) {
    const cn = clientCertName(req);
    const authz = cn === undefined ? undefined : certTokenAuthorizer(acl.resolver, acl.certTokenAllow ?? [], cn);
    if (authz !== undefined) return authz;
  }
  return acl.resolver.resolve(token);
}

export function requireAccess(
  acl: HttpAcl,
  req: FastifyRequest,
  resource: Resource,
  level: Level,
  name?: string,
): Authorizer {
  const authz = authzOf(acl, req);
  if (!authz.allowed(resource, level, name)) throw permissionDenied(authz, resource, level, name);
  return authz;
}

/**
 * Keeps what the token may read, and sets X-Consul-Results-Filtered-By-ACLs
 * when something was dropped — only for a request that presented a token, as
 * Consul does, so the anonymous caller learns nothing from it.
 */
export function filterRead<T>(
  acl: HttpAcl,
  req: FastifyRequest,
  reply: FastifyReply,
  items: readonly T[],
  can: (authz: Authorizer, item: T) => boolean,
): T[] {
  const authz = authzOf(acl, req);
  if (authz.allowsAll) return items as T[];
  const kept = items.filter((item) => can(authz, item));
  if (kept.length !== items.length) markFiltered(req, reply);
  return kept;
}

export function markFiltered(req: FastifyRequest, reply: FastifyReply): void {
  if (tokenFromRequest(req) !== '') reply.header('X-Consul-Results-Filtered-By-ACLs', 'true');
}

/**
 * Ends a blocking query's wait when its token's rights may have changed (ACL
 * write, expiry, restore), so the query re-checks the token at once: a deleted
 * token answers 403, not an empty 200 (Consul issue 20790). Returns stop().
 */
export function watchTokenRights(acl: HttpAcl, req: FastifyRequest, controller: AbortController): () => void {
  if (!acl.resolver.settings.enabled) return () => {};
  const accessor = authzOf(acl, req).accessorId; // an unknown token fails here, before any wait
  return acl.resolver.onChange((affected) => {
    if (affected === 'all' || affected.includes(accessor)) controller.abort();
  });
}

/** "METHOD url" of every route registered on the app (HEAD aside). */
export function registeredRoutes(app: FastifyInstance): readonly string[] {
  return routePolicies(app).map((p) => p.route);
}

/**
 * With ACLs on: Consul's X-Consul-Default-ACL-Policy on every answer, the
 * route's own rule (its `config.acl`, route-policy.ts) applied before the
 * handler, and 403 for a route that declared none.
 */
export function installAclGate(app: FastifyInstance, acl: HttpAcl): void {
  recordRoutePolicies(app);
  if (!acl.resolver.settings.enabled) return;
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('X-Consul-Default-ACL-Policy', acl.resolver.settings.defaultPolicy);
    const url = req.routeOptions.url;
    if (url === undefined) return done(); // unmatched: the 404 handler answers
    const rule = req.routeOptions.config.acl;
    if (rule === undefined)
      return done(
        new HubError('PERMISSION_DENIED', `Permission denied: ${req.method} ${url} has no ACL rule in this hub`),
      );
    try {
      if (typeof rule === 'object') requireAccess(acl, req, rule.resource, rule.level, rule.name);
    } catch (err) {
      return done(err as Error);
    }
    done();
  });
}
