// /v1/config: config entries, with Consul's CAS answers (`true`/`false`).
import type { FastifyInstance } from 'fastify';
import { canReadConfigEntry } from '../../acl/catalog-rules';
import type { Command } from '../../catalog/commands';
import { HubError, invalid } from '../../errors';
import { filterRead } from '../acl';
import type { HttpContext } from '../context';
import { sendJson } from '../reply';
import { policy } from '../route-policy';
import { checkKind, parseConfigEntry } from '../translate/config-entries';
import { checkIntentionProtocol } from '../translate/intentions';
import { streamingRead } from '../views';
import { authorizeWrite, refusal, submit } from '../write';

type KindParams = { Params: { kind: string } };
type EntryParams = { Params: { kind: string; name: string } };

function casParam(query: Record<string, unknown>): number | undefined {
  const v = query.cas;
  if (v === undefined) return undefined;
  const text = String(Array.isArray(v) ? v.at(-1) : v);
  if (!/^\d+$/.test(text)) throw invalid('cas', `not an index: "${text}"`);
  return Number(text);
}

export function configRoutes(app: FastifyInstance, ctx: HttpContext): void {
  app.put('/v1/config', policy.write, async (req, reply) => {
    const cas = casParam(req.query as Record<string, unknown>);
    const entry = parseConfigEntry(req.body);
    checkIntentionProtocol(entry, ctx.catalog);
    const command: Command = { type: 'config-set', entry, ...(cas === undefined ? {} : { cas }) };
    authorizeWrite(ctx, req, command);
    const result = await submit(ctx, reply, command);
    if (!result.ok && result.error?.code !== 'CONFLICT') throw refusal(result);
    return sendJson(reply, result.ok);
  });

  app.get<KindParams>('/v1/config/:kind', policy.checked, async (req, reply) => {
    const kind = checkKind(req.params.kind, 'kind');
    const entries = await streamingRead(ctx, req, reply, { kind: 'config-entries', configKind: kind });
    return sendJson(reply, filterRead(ctx.acl, req, reply, entries, canReadConfigEntry));
  });

  app.get<EntryParams>('/v1/config/:kind/:name', policy.checked, async (req, reply) => {
    const kind = checkKind(req.params.kind, 'kind');
    const key = { kind: 'config-entries', configKind: kind, name: req.params.name } as const;
    const [entry] = filterRead(ctx.acl, req, reply, await streamingRead(ctx, req, reply, key), canReadConfigEntry);
    if (!entry) throw new HubError('NOT_FOUND', `Config entry not found for "${kind}" / "${req.params.name}"`);
    return sendJson(reply, entry);
  });

  app.delete<EntryParams>('/v1/config/:kind/:name', policy.write, async (req, reply) => {
    const kind = checkKind(req.params.kind, 'kind');
    const cas = casParam(req.query as Record<string, unknown>);
    const command: Command = {
      type: 'config-delete',
      kind,
      name: req.params.name,
      ...(cas === undefined ? {} : { cas }),
    };
    authorizeWrite(ctx, req, command);
    const result = await submit(ctx, reply, command);
    if (!result.ok && result.error?.code !== 'CONFLICT') throw refusal(result);
    // Consul answers a CAS delete with true/false and a plain delete with {}.
    return sendJson(reply, cas === undefined ? {} : result.ok);
  });
}
