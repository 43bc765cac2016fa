// /v1/kv/<key>: Consul's KV store (docs/kv.md). Reads are blocking queries
// filtered by key:read; writes answer `true`/`false` as Consul's do. The
// routes live in their own fastify context because a PUT's body is the value's
// raw bytes, not JSON.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { canReadKey, canReadKv } from '../../acl/catalog-rules';
import type { Command } from '../../catalog/commands';
import type { KvEntry } from '../../catalog/kv-types';
import { filterRead, requireAccess } from '../acl';
import { blockingRead } from '../blocking';
import type { HttpContext } from '../context';
import { policy } from '../route-policy';
import { flag, many } from '../shapes';
import { dirEntryJson, KV_MAX_VALUE_BYTES, kvDeleteOp, kvPutOp } from '../translate/kv';
import { authorizeWrite, refusal, submit } from '../write';

type KeyParams = { Params: { '*': string } };
type Query = Record<string, unknown>;

function sendEntries(reply: FastifyReply, entries: readonly KvEntry[]): FastifyReply {
  return reply
    .code(200)
    .type('application/json')
    .send(`[${entries.map((e) => dirEntryJson(e)).join(',')}]`);
}

/** Consul answers a read that found nothing with an empty 404 (the index header still set). */
function notFound(reply: FastifyReply): FastifyReply {
  return reply.code(404).type('text/plain; charset=utf-8').send('');
}

async function getKv(ctx: HttpContext, req: FastifyRequest<KeyParams>, reply: FastifyReply): Promise<FastifyReply> {
  const key = req.params['*'];
  const q = req.query as Query;
  if (flag(q, 'keys')) {
    const separator = many(q.separator).at(-1) ?? '';
    const keys = await blockingRead(ctx, req, reply, () => ctx.catalog.kvKeys(key, separator));
    const kept = filterRead(ctx.acl, req, reply, keys, canReadKey);
    return kept.length === 0 ? notFound(reply) : reply.code(200).type('application/json').send(JSON.stringify(kept));
  }
  if (flag(q, 'recurse')) {
    const entries = await blockingRead(ctx, req, reply, () => ctx.catalog.kvList(key));
    const kept = filterRead(ctx.acl, req, reply, entries, canReadKv);
    return kept.length === 0 ? notFound(reply) : sendEntries(reply, kept);
  }
  requireAccess(ctx.acl, req, 'key', 'read', key);
  const entry = await blockingRead(ctx, req, reply, () => ctx.catalog.kvGet(key));
  if (!entry) return notFound(reply);
  if (!flag(q, 'raw')) return sendEntries(reply, [entry]);
  // A value is anything a writer put there: never let a browser run it (Consul's headers).
  reply.header('X-Content-Type-Options', 'nosniff').header('Content-Security-Policy', 'sandbox');
  return reply
    .code(200)
    .type('text/plain')
    .send(entry.Value === null ? '' : Buffer.from(entry.Value, 'base64'));
}

/** Submits a KV write; a CAS, lock or unlock that did not hold answers `false`. */
async function writeKv(
  ctx: HttpContext,
  req: FastifyRequest,
  reply: FastifyReply,
  command: Command,
): Promise<FastifyReply> {
  authorizeWrite(ctx, req, command);
  const result = await submit(ctx, reply, command);
  if (!result.ok && result.error?.code !== 'CONFLICT') throw refusal(result);
  return reply.code(200).type('application/json').send(String(result.ok));
}

export function kvRoutes(app: FastifyInstance, ctx: HttpContext): void {
  void app.register(async (kv) => {
    kv.removeAllContentTypeParsers();
    kv.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: KV_MAX_VALUE_BYTES }, (_req, raw, done) =>
      done(null, raw),
    );

    kv.get<KeyParams>('/v1/kv/*', policy.checked, (req, reply) => getKv(ctx, req, reply));

    kv.put<KeyParams>('/v1/kv/*', policy.checked, async (req, reply) => {
      const body = Buffer.isBuffer(req.body) ? req.body : undefined;
      const op = kvPutOp(req.params['*'], req.query as Query, body);
      return writeKv(ctx, req, reply, { type: 'kv', op, now: Date.now() });
    });

    kv.delete<KeyParams>('/v1/kv/*', policy.checked, async (req, reply) => {
      const q = req.query as Query;
      const op = kvDeleteOp(req.params['*'], q, flag(q, 'recurse'));
      return writeKv(ctx, req, reply, { type: 'kv', op, now: Date.now() });
    });
  });
}
