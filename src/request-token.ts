// The ACL token of an HTTP request, where Consul looks for it: ?token=, then
// X-Consul-Token, then Authorization: Bearer. Shared by the HTTP API and the
// xDS REST endpoints (which must not depend on the HTTP API's modules).
import type { FastifyRequest } from 'fastify';

function last(value: unknown): string | undefined {
  if (Array.isArray(value)) return value.length ? String(value[value.length - 1]) : undefined;
  return value === undefined ? undefined : String(value);
}

const tokens = new WeakMap<FastifyRequest, string>();

/** Consul's order: ?token=, then X-Consul-Token, then Authorization: Bearer. */
export function tokenFromRequest(req: FastifyRequest): string {
  let token = tokens.get(req);
  if (token !== undefined) return token;
  token = last((req.query as Record<string, unknown> | undefined)?.token) ?? '';
  const header = req.headers['x-consul-token'];
  if (token === '' && typeof header === 'string') token = header.trim();
  const auth = req.headers.authorization;
  if (token === '' && typeof auth === 'string' && /^bearer\s+/i.test(auth))
    token = auth.replace(/^bearer\s+/i, '').trim();
  tokens.set(req, token);
  return token;
}
