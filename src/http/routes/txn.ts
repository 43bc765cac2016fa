// /v1/txn: KV, Node, Service and Check operations applied as one command, all
// or none. Refusals answer 409 with Consul's JSON Errors; KV results are
// DirEntries written with exact Flags, those the token may not read left out.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Authorizer } from '../../acl/authorizer';
import { canReadCheck, canReadKv, canReadNode } from '../../acl/catalog-rules';
import type { KvEntry } from '../../catalog/kv-types';
import type { HealthCheck, Node, NodeService } from '../../catalog/types';
import { authzOf, markFiltered } from '../acl';
import type { HttpContext } from '../context';
import { sendJson, sendText } from '../reply';
import { policy } from '../route-policy';
import { dirEntryJson } from '../translate/kv';
import { readOnlyTxn, TooManyOps, TxnOpErrors, txnCommand } from '../translate/txn';
import { authorizeWrite, submit } from '../write';

type Result = { KV?: KvEntry; Node?: Node; Service?: NodeService; Check?: HealthCheck };

/** Whether the token may read a result (Consul's txn filters what it may not, and says so). */
function readable(authz: Authorizer, r: Result): boolean {
  if (r.KV) return canReadKv(authz, r.KV);
  if (r.Service) return authz.allowed('service', 'read', r.Service.Service);
  if (r.Check) return canReadCheck(authz, r.Check);
  return r.Node ? canReadNode(authz, r.Node) : true;
}

function resultsJson(ctx: HttpContext, req: FastifyRequest, reply: FastifyReply, results: readonly unknown[]): string {
  const authz = authzOf(ctx.acl, req);
  const out: string[] = [];
  for (const r of results as Result[]) {
    if (!authz.allowsAll && !readable(authz, r)) markFiltered(req, reply);
    else if (r.KV) out.push(`{"KV":${dirEntryJson(r.KV)}}`);
    else out.push(JSON.stringify(r));
  }
  return `[${out.join(',')}]`;
}

/**
 * The query meta Consul writes beside Results and Errors when every op only reads
 * (it serves such a transaction as a read: TxnReadResponse). Index and
 * LastContact as the read's own headers.
 */
function readMeta(reply: FastifyReply, index: bigint | number): string {
  const filtered = reply.getHeader('X-Consul-Results-Filtered-By-ACLs') === 'true';
  const meta = {
    Index: Number(index),
    LastContact: 0,
    KnownLeader: true,
    ConsistencyLevel: '',
    NotModified: false,
    Backend: 0,
    ResultsFilteredByACLs: filtered,
  };
  return JSON.stringify(meta).slice(1, -1);
}

export function txnRoutes(app: FastifyInstance, ctx: HttpContext): void {
  const defaults = { datacenter: ctx.config.datacenter };
  app.put('/v1/txn', policy.write, async (req, reply) => {
    let command: ReturnType<typeof txnCommand>;
    try {
      command = txnCommand(req.body, defaults, ctx.config.limits.txnMaxOps);
    } catch (err) {
      // Consul answers an oversized transaction with 413, ops with unknown verbs with 409.
      if (err instanceof TooManyOps) return sendText(reply, 413, err.message);
      if (err instanceof TxnOpErrors) return sendJson(reply, { Results: null, Errors: err.errors }, 409);
      throw err;
    }
    authorizeWrite(ctx, req, command);
    const result = await submit(ctx, reply, command);
    const meta = () => (readOnlyTxn(command) ? `,${readMeta(reply, result.index)}` : '');
    if (result.ok) {
      const results = resultsJson(ctx, req, reply, result.txnResults ?? []);
      const body = `{"Results":${results},"Errors":null${meta()}}`;
      return reply.code(200).type('application/json').send(body);
    }
    const errors = result.txnErrors ?? [{ OpIndex: 0, What: result.error?.message ?? 'transaction refused' }];
    return reply
      .code(409)
      .type('application/json')
      .send(`{"Results":null,"Errors":${JSON.stringify(errors)}${meta()}}`);
  });
}
