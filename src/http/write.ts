// The one way routes write: submit a command, time it, count it, put its log
// index in X-Consul-Index, and turn apply's refusals into HubErrors.
import type { FastifyReply } from 'fastify';
import type { ApplyResult, Command } from '../catalog/commands';
import { HubError } from '../errors';
import type { HttpContext } from './context';

export async function submit(ctx: HttpContext, reply: FastifyReply, command: Command): Promise<ApplyResult> {
  const started = process.hrtime.bigint();
  let result: ApplyResult;
  try {
    result = await ctx.catalog.submit(command);
  } catch (err) {
    ctx.metrics.catalogWrites.inc({ type: command.type, outcome: 'error' });
    throw err;
  }
  ctx.metrics.writeLatency.observe({ type: command.type }, Number(process.hrtime.bigint() - started) / 1e9);
  ctx.metrics.catalogWrites.inc({ type: command.type, outcome: result.ok ? 'ok' : 'refused' });
  reply.header('X-Consul-Index', String(result.index));
  return result;
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
