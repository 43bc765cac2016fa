// /v1/connect/intentions: Consul's intentions API, served from and written to
// service-intentions config entries (docs/mesh.md "Intentions"). A write
// rewrites the destination's entry with a check-and-set on its ModifyIndex and
// tries again if another write got there first, so concurrent intention
// writes to one destination never lose each other. Also
// POST /v1/agent/connect/authorize, the agent's intention check for a client
// certificate.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Indexed } from '../../catalog/catalog';
import type { Command, ConfigEntryInput } from '../../catalog/commands';
import type { ConfigEntry } from '../../catalog/types';
import {
  allIntentions,
  checkConnection,
  defaultIntention,
  type Intention,
  type IntentionAction,
} from '../../connect/intentions';
import { HubError, invalid } from '../../errors';
import { filterRead, requireAccess } from '../acl';
import { blockingRead } from '../blocking';
import { Body } from '../body';
import type { HttpContext } from '../context';
import { filterParam } from '../query';
import { sendJson } from '../reply';
import { policy } from '../route-policy';
import { many } from '../shapes';
import {
  checkIntentionProtocol,
  INTENTION_FIELDS,
  intentionJson,
  intentionName,
  sourceFromBody,
  withoutSource,
  withSource,
} from '../translate/intentions';
import { authorizeWrite, refusal, submit } from '../write';

type Query = Record<string, unknown>;
type IdParams = { Params: { id: string } };
const ATTEMPTS = 10;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What the intention routes read, built once per app. */
interface Deps {
  readonly ctx: HttpContext;
  readonly entries: () => Indexed<readonly ConfigEntry[]>;
  readonly intentions: () => Indexed<Intention[]>;
  readonly fallback: () => IntentionAction;
}

export function intentionRoutes(app: FastifyInstance, ctx: HttpContext): void {
  const entries = () => ctx.catalog.configEntries('service-intentions');
  const intentions = () => {
    const e = entries();
    return { index: e.index, value: allIntentions(e.value) };
  };
  const fallback = () => defaultIntention(ctx.catalog.configEntry('mesh', 'mesh').value, ctx.config.defaultIntention);
  const d: Deps = { ctx, entries, intentions, fallback };
  exactRoutes(app, d);
  matchRoutes(app, d);
  legacyRoutes(app, d);
  authorizeRoute(app, d);
}

/** Rewrites the destination's entry with `change`, compare-and-set, until it sticks. */
async function rewrite(
  ctx: HttpContext,
  req: FastifyRequest,
  reply: FastifyReply,
  destination: string,
  change: (entry: ConfigEntry | undefined) => ConfigEntryInput | undefined | 'unchanged',
): Promise<void> {
  requireAccess(ctx.acl, req, 'intention', 'write', destination);
  for (let attempt = 1; ; attempt++) {
    const entry = ctx.catalog.configEntry('service-intentions', destination).value;
    const next = change(entry);
    if (next === 'unchanged') return;
    if (next) checkIntentionProtocol(next, ctx.catalog);
    const cas = entry?.ModifyIndex ?? 0;
    const command: Command = next
      ? { type: 'config-set', entry: next, cas }
      : { type: 'config-delete', kind: 'service-intentions', name: destination, cas };
    authorizeWrite(ctx, req, command);
    const result = await submit(ctx, reply, command);
    if (result.ok) return;
    if (result.error?.code !== 'CONFLICT' || attempt >= ATTEMPTS) throw refusal(result);
  }
}

/** The intentions the request's token may read (intention:read on the destination). */
function readable(ctx: HttpContext, req: FastifyRequest, reply: FastifyReply, list: readonly Intention[]): Intention[] {
  return filterRead(ctx.acl, req, reply, list, (authz, i) => authz.allowed('intention', 'read', i.destination));
}

function exactQuery(query: Query): { source: string; destination: string } {
  return {
    source: intentionName(query.source, 'source'),
    destination: intentionName(query.destination, 'destination'),
  };
}

function byId(d: Deps, id: string): Intention {
  if (!UUID.test(id)) throw invalid('id', `not an intention ID: "${id}"`);
  const found = allIntentions(d.entries().value).find((i) => i.raw['LegacyID'] === id);
  if (!found) throw new HubError('NOT_FOUND', 'Intention not found');
  return found;
}

/** The list, and one intention by source and destination. */
function exactRoutes(app: FastifyInstance, d: Deps): void {
  const { ctx, intentions } = d;
  app.get('/v1/connect/intentions', policy.checked, async (req, reply) => {
    const filter = filterParam(req.query as Query, INTENTION_FIELDS);
    const list = await blockingRead(ctx, req, reply, intentions);
    const json = readable(ctx, req, reply, list).map(intentionJson);
    return sendJson(reply, filter ? json.filter((i) => filter(i)) : json);
  });

  app.get('/v1/connect/intentions/exact', policy.checked, async (req, reply) => {
    const { source, destination } = exactQuery(req.query as Query);
    requireAccess(ctx.acl, req, 'intention', 'read', destination);
    const list = await blockingRead(ctx, req, reply, intentions);
    const found = list.find((i) => i.source === source && i.destination === destination);
    if (!found) throw new HubError('NOT_FOUND', 'Intention not found');
    return sendJson(reply, intentionJson(found));
  });

  app.put('/v1/connect/intentions/exact', policy.checked, async (req, reply) => {
    const { source, destination } = exactQuery(req.query as Query);
    const src = sourceFromBody(req.body, source, destination);
    await rewrite(ctx, req, reply, destination, (entry) => withSource(entry, destination, src));
    return sendJson(reply, true);
  });

  app.delete('/v1/connect/intentions/exact', policy.checked, async (req, reply) => {
    const { source, destination } = exactQuery(req.query as Query);
    await rewrite(ctx, req, reply, destination, (entry) => {
      if (!entry || !(entry['Sources'] as Record<string, unknown>[]).some((s) => s['Name'] === source))
        return 'unchanged';
      return withoutSource(entry, source);
    });
    return sendJson(reply, true);
  });
}

/** Which intentions apply to a name, and whether a connection is allowed. */
function matchRoutes(app: FastifyInstance, d: Deps): void {
  const { ctx, intentions } = d;
  // ?by=source|destination&name=X (repeatable): for each name, the intentions that apply to it, most precise first.
  app.get('/v1/connect/intentions/match', policy.checked, async (req, reply) => {
    const query = req.query as Query;
    const by = String(many(query.by).at(-1) ?? '');
    if (by !== 'source' && by !== 'destination') throw invalid('by', `must be "source" or "destination", got "${by}"`);
    const names = many(query.name);
    if (names.length === 0) throw invalid('name', 'is required');
    names.forEach((n, i) => intentionName(n, `name[${i}]`));
    const list = readable(ctx, req, reply, await blockingRead(ctx, req, reply, intentions));
    const out: Record<string, unknown[]> = {};
    for (const name of names) {
      out[name] = list
        .filter((i) =>
          by === 'source' ? i.source === name || i.source === '*' : i.destination === name || i.destination === '*',
        )
        .map(intentionJson);
    }
    return sendJson(reply, out);
  });

  app.get('/v1/connect/intentions/check', policy.checked, async (req, reply) => {
    const { source, destination } = exactQuery(req.query as Query);
    requireAccess(ctx.acl, req, 'intention', 'read', destination);
    const list = await blockingRead(ctx, req, reply, intentions);
    return sendJson(reply, { Allowed: checkConnection(list, source, destination, d.fallback()).allowed });
  });
}

// Legacy (ID-based) API, as Consul still serves it: the ID lives in the source's LegacyID.
function legacyRoutes(app: FastifyInstance, d: Deps): void {
  const { ctx, intentions } = d;
  app.post('/v1/connect/intentions', policy.checked, async (req, reply) => {
    const body = Body.of(req.body ?? {});
    const source = intentionName(body.get('SourceName'), 'SourceName');
    const destination = intentionName(body.get('DestinationName'), 'DestinationName');
    if (body.str('ID') !== '') throw invalid('ID', 'must be empty when creating an intention');
    const id = randomUUID();
    const src = sourceFromBody(req.body, source, destination, { id, now: new Date().toISOString() });
    await rewrite(ctx, req, reply, destination, (entry) => {
      if (entry && (entry['Sources'] as Record<string, unknown>[]).some((s) => s['Name'] === source)) {
        throw new HubError('INVALID_ARGUMENT', `duplicate intention found: ${source} => ${destination}`);
      }
      return withSource(entry, destination, src);
    });
    return sendJson(reply, { ID: id });
  });

  app.get<IdParams>('/v1/connect/intentions/:id', policy.checked, async (req, reply) => {
    await blockingRead(ctx, req, reply, intentions);
    const found = byId(d, req.params.id);
    requireAccess(ctx.acl, req, 'intention', 'read', found.destination);
    return sendJson(reply, intentionJson(found));
  });

  app.put<IdParams>('/v1/connect/intentions/:id', policy.checked, async (req, reply) => {
    const existing = byId(d, req.params.id);
    const body = Body.of(req.body ?? {});
    for (const [field, want] of [
      ['SourceName', existing.source],
      ['DestinationName', existing.destination],
    ] as const) {
      const given = body.str(field);
      if (given !== '' && given !== want)
        throw invalid(
          field,
          'moving an intention to another source or destination is not supported: delete it and create another',
        );
    }
    const created =
      typeof existing.raw['LegacyCreateTime'] === 'string' ? (existing.raw['LegacyCreateTime'] as string) : undefined;
    const src = sourceFromBody(req.body, existing.source, existing.destination, {
      id: req.params.id,
      now: new Date().toISOString(),
      ...(created ? { created } : {}),
    });
    await rewrite(ctx, req, reply, existing.destination, (entry) => withSource(entry, existing.destination, src));
    return sendJson(reply, true);
  });

  app.delete<IdParams>('/v1/connect/intentions/:id', policy.checked, async (req, reply) => {
    const existing = byId(d, req.params.id);
    await rewrite(ctx, req, reply, existing.destination, (entry) =>
      entry ? withoutSource(entry, existing.source) : 'unchanged',
    );
    return sendJson(reply, true);
  });
}

// The agent's check of a client certificate against intentions (Consul's /v1/agent/connect/authorize).
function authorizeRoute(app: FastifyInstance, d: Deps): void {
  const { ctx } = d;
  app.post('/v1/agent/connect/authorize', policy.checked, async (req, reply) => {
    const body = Body.of(req.body ?? {});
    body.onlyKeys(['Target', 'ClientCertURI', 'ClientCertSerial']);
    const target = intentionName(body.get('Target'), 'Target');
    requireAccess(ctx.acl, req, 'service', 'write', target);
    const uri = body.requiredStr('ClientCertURI');
    const trustDomain = ctx.catalog.connectCa().trustDomain;
    const m = /^spiffe:\/\/([^/]+)\/ns\/([^/]+)\/dc\/([^/]+)\/svc\/([^/]+)$/.exec(uri);
    if (!m) throw invalid('ClientCertURI', `not a service SPIFFE ID: "${uri}"`);
    if (m[1] !== trustDomain)
      return sendJson(reply, { Authorized: false, Reason: 'Client certificate is not from this trust domain' });
    const verdict = checkConnection(allIntentions(d.entries().value), m[4]!, target, d.fallback());
    return sendJson(reply, { Authorized: verdict.allowed, Reason: verdict.reason });
  });
}
