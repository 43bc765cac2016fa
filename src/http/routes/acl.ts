// /v1/acl/*: bootstrap, tokens and policies in Consul's shapes. Writes go
// through the log like every catalog write, so all hubs sharing it agree.
// Reads need acl:read, writes acl:write; /token/self needs only a valid token.
// A stored token's SecretID cannot be shown (only its hash is kept): reads show
// "<hidden>", except /token/self, which echoes the secret the caller presented.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ACL_DISABLED, aclNotFound } from '../../acl/deny';
import { newId } from '../../acl/secrets';
import { ANONYMOUS_ACCESSOR_ID } from '../../acl/types';
import { HubError } from '../../errors';
import { authzOf, requireAccess, tokenFromRequest } from '../acl';
import type { HttpContext } from '../context';
import { sendJson, sendText } from '../reply';
import { policy } from '../route-policy';
import { managementToken, policyOut, policyWrite, shownSecret, tokenOut, tokenWrite } from '../translate/acl';
import { refusal, submit } from '../write';

type IdParams = { Params: { id: string } };

/** What the ACL routes read, built once per app. */
interface Deps {
  readonly ctx: HttpContext;
  readonly acl: HttpContext['acl'];
  readonly tables: () => ReturnType<HttpContext['catalog']['acl']>;
}

export function aclRoutes(app: FastifyInstance, ctx: HttpContext): void {
  const { acl } = ctx;
  const enabled = acl.resolver.settings.enabled;
  const d: Deps = { ctx, acl, tables: () => ctx.catalog.acl() };

  /** Consul answers every ACL endpoint with 401 when ACLs are off. */
  app.addHook('onRequest', (req, reply, done) => {
    if (!enabled && req.routeOptions.url?.startsWith('/v1/acl/')) {
      sendText(reply, 401, ACL_DISABLED);
      return;
    }
    done();
  });

  bootstrapRoute(app, d);
  tokenRoutes(app, d);
  policyRoutes(app, d);
}

function indexed(d: Deps, reply: FastifyReply): FastifyReply {
  return reply.header('X-Consul-Index', String(Math.max(1, d.tables().index)));
}

async function write(d: Deps, reply: FastifyReply, command: Parameters<typeof submit>[2]) {
  const result = await submit(d.ctx, reply, command);
  if (!result.ok) throw refusal(result);
  return result;
}

function bootstrapRoute(app: FastifyInstance, d: Deps): void {
  const { ctx, tables } = d;
  app.put('/v1/acl/bootstrap', policy.public, async (_req, reply) => {
    const secret = newId();
    const token = managementToken(secret, newId(), 'Bootstrap Token (Global Management)');
    const result = await submit(ctx, reply, { type: 'acl-bootstrap', token });
    if (!result.ok) {
      if (result.error?.code === 'CONFLICT')
        throw new HubError('PERMISSION_DENIED', `Permission denied: ${result.error.message}`);
      throw refusal(result);
    }
    const stored = tables().tokens.get(token.AccessorID)!;
    // Consul's bootstrap answer carries the secret twice: as ID (legacy) and SecretID.
    return sendJson(reply, { ID: secret, ...tokenOut(tables(), stored, secret) });
  });
}

// ── tokens ──
function tokenRoutes(app: FastifyInstance, d: Deps): void {
  const { acl, tables } = d;
  app.put('/v1/acl/token', policy.checked, async (req, reply) => {
    requireAccess(acl, req, 'acl', 'write');
    const { token, secret } = tokenWrite(req.body, tables(), undefined, undefined);
    await write(d, reply, { type: 'acl-token-set', token, create: true });
    return sendJson(reply, tokenOut(tables(), tables().tokens.get(token.AccessorID)!, secret));
  });

  app.get('/v1/acl/token/self', policy.checked, async (req, reply) => {
    const secret = tokenFromRequest(req);
    authzOf(acl, req); // unknown or expired: 403 ACL not found
    const token = acl.resolver.token(secret);
    if (!token) throw aclNotFound();
    return sendJson(indexed(d, reply), tokenOut(tables(), token, secret === '' ? shownSecret(token) : secret));
  });

  app.get<IdParams>('/v1/acl/token/:id', policy.checked, async (req, reply) => {
    requireAccess(acl, req, 'acl', 'read');
    const token = tables().tokens.get(req.params.id);
    if (!token) throw aclNotFound();
    return sendJson(indexed(d, reply), tokenOut(tables(), token, shownSecret(token)));
  });

  app.put<IdParams>('/v1/acl/token/:id', policy.checked, async (req, reply) => {
    requireAccess(acl, req, 'acl', 'write');
    const existing = tables().tokens.get(req.params.id);
    if (!existing) throw new HubError('NOT_FOUND', `Cannot find token ${JSON.stringify(req.params.id)}`);
    const { token } = tokenWrite(req.body, tables(), existing, req.params.id);
    await write(d, reply, { type: 'acl-token-set', token, create: false });
    return sendJson(reply, tokenOut(tables(), tables().tokens.get(token.AccessorID)!, shownSecret(existing)));
  });

  app.put<IdParams>('/v1/acl/token/:id/clone', policy.checked, (req, reply) => cloneToken(d, req, reply));

  app.delete<IdParams>('/v1/acl/token/:id', policy.checked, async (req, reply) => {
    const authz = requireAccess(acl, req, 'acl', 'write');
    if (authz.accessorId === req.params.id)
      throw new HubError('INVALID_ARGUMENT', "Deletion of the request's authorization token is not permitted");
    await write(d, reply, { type: 'acl-token-delete', accessorId: req.params.id });
    return sendJson(reply, true);
  });

  app.get('/v1/acl/tokens', policy.checked, async (req, reply) => {
    requireAccess(acl, req, 'acl', 'read');
    const policy = (req.query as { policy?: unknown }).policy;
    const t = tables();
    const list = [...t.tokens.values()]
      .filter((tk) => typeof policy !== 'string' || policy === '' || tk.PolicyIDs.includes(policy))
      .sort((a, b) => a.CreateIndex - b.CreateIndex || (a.AccessorID < b.AccessorID ? -1 : 1))
      .map((tk) => ({ ...tokenOut(t, tk, shownSecret(tk)), Legacy: false }));
    return sendJson(indexed(d, reply), list);
  });
}

async function cloneToken(d: Deps, req: FastifyRequest<IdParams>, reply: FastifyReply) {
  const { acl, tables } = d;
  requireAccess(acl, req, 'acl', 'write');
  const source = tables().tokens.get(req.params.id);
  if (!source) throw aclNotFound();
  if (source.AccessorID === ANONYMOUS_ACCESSOR_ID)
    throw new HubError('INVALID_ARGUMENT', 'Cannot clone the anonymous token');
  const description = (req.body as { Description?: unknown } | undefined)?.Description;
  const body = {
    Description: typeof description === 'string' ? description : source.Description,
    Policies: source.PolicyIDs.map((ID) => ({ ID })),
    Local: source.Local,
    ...(source.ExpirationTime ? { ExpirationTime: source.ExpirationTime } : {}),
  };
  const { token, secret } = tokenWrite(body, tables(), undefined, undefined);
  await write(d, reply, { type: 'acl-token-set', token, create: true });
  return sendJson(reply, tokenOut(tables(), tables().tokens.get(token.AccessorID)!, secret));
}

// ── policies ──
function policyRoutes(app: FastifyInstance, d: Deps): void {
  const { acl, tables } = d;
  app.put('/v1/acl/policy', policy.checked, async (req, reply) => {
    requireAccess(acl, req, 'acl', 'write');
    const policy = await policyWrite(req.body, undefined);
    await write(d, reply, { type: 'acl-policy-set', policy, create: true });
    return sendJson(reply, policyOut(tables().policies.get(policy.ID)!));
  });

  app.get<IdParams>('/v1/acl/policy/:id', policy.checked, async (req, reply) => {
    requireAccess(acl, req, 'acl', 'read');
    const policy = tables().policies.get(req.params.id);
    if (!policy) throw aclNotFound();
    return sendJson(indexed(d, reply), policyOut(policy));
  });

  app.get<{ Params: { name: string } }>('/v1/acl/policy/name/:name', policy.checked, async (req, reply) => {
    requireAccess(acl, req, 'acl', 'read');
    const policy = [...tables().policies.values()].find((p) => p.Name === req.params.name);
    if (!policy) throw aclNotFound();
    return sendJson(indexed(d, reply), policyOut(policy));
  });

  app.put<IdParams>('/v1/acl/policy/:id', policy.checked, async (req, reply) => {
    requireAccess(acl, req, 'acl', 'write');
    if (!tables().policies.has(req.params.id))
      throw new HubError('NOT_FOUND', `Cannot find policy ${JSON.stringify(req.params.id)}`);
    const policy = await policyWrite(req.body, req.params.id);
    await write(d, reply, { type: 'acl-policy-set', policy, create: false });
    return sendJson(reply, policyOut(tables().policies.get(policy.ID)!));
  });

  app.delete<IdParams>('/v1/acl/policy/:id', policy.checked, async (req, reply) => {
    requireAccess(acl, req, 'acl', 'write');
    await write(d, reply, { type: 'acl-policy-delete', id: req.params.id });
    return sendJson(reply, true);
  });

  app.get('/v1/acl/policies', policy.checked, async (req, reply) => {
    requireAccess(acl, req, 'acl', 'read');
    const list = [...tables().policies.values()]
      .sort((a, b) => a.CreateIndex - b.CreateIndex || (a.ID < b.ID ? -1 : 1))
      .map((p) => policyOut(p, false));
    return sendJson(indexed(d, reply), list);
  });
}
