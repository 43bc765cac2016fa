// /v1/txn: KV, Node, Service and Check operations applied as one command, all
// or none. Refusals answer 409 with Consul's JSON Errors; KV results are
// DirEntries written with exact Flags, those the token may not read left out.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { canReadKv } from '../../acl/catalog-rules';
import type { KvEntry } from '../../catalog/kv-types';
import { authzOf, markFiltered } from '../acl';
import type { HttpContext } from '../context';
import { sendJson, sendText } from '../reply';
import { policy } from '../route-policy';
import { dirEntryJson } from '../translate/kv';
import { TooManyOps, txnCommand } from '../translate/txn';
import { authorizeWrite, submit } from '../write';

function resultsJson(ctx: HttpContext, req: FastifyRequest, reply: FastifyReply, results: readonly unknown[]): string {
  const authz = authzOf(ctx.acl, req);
  const out: string[] = [];
  for (const r of results) {
    const kv = (r as { KV?: KvEntry }).KV;
    if (kv === undefined) out.push(JSON.stringify(r));
    else if (authz.allowsAll || canReadKv(authz, kv)) out.push(`{"KV":${dirEntryJson(kv)}}`);
    else markFiltered(req, reply);
  }
  return `[${out.join(',')}]`;
}

export function txnRoutes(app: FastifyInstance, ctx: HttpContext): void {
  const defaults = { datacenter: ctx.config.datacenter };
  app.put('/v1/txn', policy.write, async (req, reply) => {
    let command: ReturnType<typeof txnCommand>;
    try {
      command = txnCommand(req.body, defaults, ctx.config.limits.txnMaxOps);
    } catch (err) {
      // Consul answers an oversized transaction with 413.
      if (err instanceof TooManyOps) return sendText(reply, 413, err.message);
      throw err;
    }
    authorizeWrite(ctx, req, command);
    const result = await submit(ctx, reply, command);
    if (result.ok) {
      const body = `{"Results":${resultsJson(ctx, req, reply, result.txnResults ?? [])},"Errors":null}`;
      return reply.code(200).type('application/json').send(body);
    }
    const errors = result.txnErrors ?? [{ OpIndex: 0, What: result.error?.message ?? 'transaction refused' }];
    return sendJson(reply, { Results: null, Errors: errors }, 409);
  });
}
