// The one way routes write: submit a command, time it, count it, put its log
// index in X-Consul-Index, and turn apply's refusals into HubErrors.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { permissionDenied } from '../acl/deny';
import { rightsFor } from '../acl/write-rights';
import type { ApplyResult, Command } from '../catalog/commands';
import { HubError, invalid } from '../errors';
import { authzOf } from './acl';
import type { HttpContext } from './context';

/**
 * How the hub's operator tools (src/ops) take part in a write: a dry run
 * answers without writing (by throwing WriteAnswered), a staged rollout wraps
 * the submit. Installed with app.decorate('xdshubWriteHook', hook).
 */
export type WriteHook = (
  reply: FastifyReply,
  command: Command,
  submit: () => Promise<ApplyResult>,
) => Promise<ApplyResult>;

declare module 'fastify' {
  interface FastifyInstance {
    xdshubWriteHook?: WriteHook;
  }
}

/** A write answered by the hook instead of the route (a dry run): the error handler sends `body` with 200. */
export class WriteAnswered extends Error {
  constructor(readonly body: unknown) {
    super('answered without writing');
  }
}

/** Options only the operator tools understand; refused when they are not there. */
const OPS_QUERY = ['dry-run', 'rollout'];

export async function submit(ctx: HttpContext, reply: FastifyReply, command: Command): Promise<ApplyResult> {
  const started = process.hrtime.bigint();
  let result: ApplyResult;
  const hook = reply.server.xdshubWriteHook;
  if (!hook) {
    const query = reply.request.query as Record<string, unknown>;
    const asked =
      OPS_QUERY.find((q) => query[q] !== undefined) ??
      (reply.request.headers['x-xdshub-rollout'] !== undefined ? 'X-Xdshub-Rollout' : undefined);
    if (asked) throw invalid(asked, 'needs the xDS server (xdshub serve); this hub has none');
  }
  try {
    result = hook ? await hook(reply, command, () => ctx.catalog.submit(command)) : await ctx.catalog.submit(command);
  } catch (err) {
    if (err instanceof WriteAnswered) throw err;
    ctx.metrics.catalogWrites.inc({ type: command.type, outcome: 'error' });
    throw err;
  }
  ctx.metrics.writeLatency.observe({ type: command.type }, Number(process.hrtime.bigint() - started) / 1e9);
  ctx.metrics.catalogWrites.inc({ type: command.type, outcome: result.ok ? 'ok' : 'refused' });
  reply.header('X-Consul-Index', String(result.index));
  // What fan-out hubs forwarding this write wait for before they answer (read-your-writes there).
  const changed = result.ok ? ctx.changedKeys?.(result.index) : undefined;
  if (changed) reply.header('X-Xdshub-Changed', changed);
  return result;
}

/** Throws Consul's 403 unless the request's token has every right `command` needs (src/acl/write-rights.ts). */
export function authorizeWrite(ctx: HttpContext, req: FastifyRequest, command: Command): void {
  const authz = authzOf(ctx.acl, req);
  if (authz.allowsAll) return;
  for (const right of rightsFor(ctx.catalog, command)) {
    if (!authz.allowed(right.resource, right.level, right.name))
      throw permissionDenied(authz, right.resource, right.level, right.name);
  }
}

/** A refused command as the HubError its code maps to. */
export function refusal(result: ApplyResult): HubError {
  const error = result.error ?? { code: 'INTERNAL' as const, message: 'command refused without a reason' };
  return new HubError(error.code, error.message, { field: 'field' in error ? error.field : undefined });
}

/** Submits and throws on refusal; for endpoints with no special refusal answer. */
export async function submitOrThrow(ctx: HttpContext, reply: FastifyReply, command: Command): Promise<ApplyResult> {
  const result = await submit(ctx, reply, command);
  if (!result.ok) throw refusal(result);
  return result;
}
