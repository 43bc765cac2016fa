// Consul blocking queries: `?index=N&wait=D`. The read is re-run each time the
// catalog applies an entry (catalog.waitForIndex — no polling) and the reply is
// sent as soon as the read's own index passes N, or when the wait ends (with
// the current data). A write elsewhere in the catalog wakes the loop but does
// not answer it, because the read's index does not move.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Indexed } from '../catalog/catalog';
import { parseDurationMs } from '../config';
import { invalid } from '../errors';
import type { HttpContext } from './context';
import { watchTokenRights } from './acl';

/** Consul's defaults: 5 minutes when no wait is given, at most 10 minutes. */
export const DEFAULT_WAIT_MS = 5 * 60_000;
export const MAX_WAIT_MS = 10 * 60_000;

export interface BlockingParams {
  index: bigint;
  waitMs: number;
}

function one(value: unknown): string | undefined {
  if (Array.isArray(value)) return value.length ? String(value[value.length - 1]) : undefined;
  return value === undefined ? undefined : String(value);
}

export function parseBlocking(query: Record<string, unknown>): BlockingParams | undefined {
  const indexText = one(query.index);
  const waitText = one(query.wait);
  let waitMs = DEFAULT_WAIT_MS;
  if (waitText !== undefined && waitText !== '') {
    waitMs = Math.min(parseDurationMs(waitText, 'wait'), MAX_WAIT_MS);
  }
  if (indexText === undefined || indexText === '') return undefined;
  if (!/^\d+$/.test(indexText)) throw invalid('index', `not an index: "${indexText}"`);
  const index = BigInt(indexText);
  // index=0 is "no index yet": Consul answers at once.
  return index === 0n ? undefined : { index, waitMs };
}

export async function blockingRead<T>(
  ctx: HttpContext,
  req: FastifyRequest,
  reply: FastifyReply,
  read: () => Indexed<T>,
  options: { untilChanged?: boolean } = {},
): Promise<T> {
  const params = parseBlocking(req.query as Record<string, unknown>);
  let result = read();
  // An index from the future means the state went backwards (a memory-store hub
  // restarted): answer now so the client sees the lower index and resets, as
  // Consul's clients are told to.
  if (params && params.index <= ctx.catalog.lastIndex() && BigInt(result.index) <= params.index) {
    result = await waitForChange(ctx, req, reply, read, params, result, options.untilChanged === true);
  }
  reply.header('X-Consul-Index', String(result.index));
  return result.value;
}

async function waitForChange<T>(
  ctx: HttpContext,
  req: FastifyRequest,
  reply: FastifyReply,
  read: () => Indexed<T>,
  params: BlockingParams,
  first: Indexed<T>,
  untilChanged: boolean,
): Promise<Indexed<T>> {
  const controller = new AbortController();
  // Consul adds up to wait/16 of jitter so that many watchers don't return together.
  const jitter = Math.floor(Math.random() * (params.waitMs / 16));
  const timer = setTimeout(() => controller.abort(), params.waitMs + jitter);
  const onClose = () => controller.abort();
  reply.raw.once('close', onClose);
  ctx.waits.add(controller);
  const unwatch = watchTokenRights(ctx.acl, req, controller);
  let result = first;
  // A filtered read's index moves with its whole table; it answers only once
  // what passes the filter differs from what the client already has.
  const seen = untilChanged ? JSON.stringify(first.value) : undefined;
  const done = (r: Indexed<T>) => BigInt(r.index) > params.index && (seen === undefined || JSON.stringify(r.value) !== seen);
  try {
    while (!done(result) && !controller.signal.aborted) {
      try {
        await ctx.catalog.waitForIndex(ctx.catalog.lastIndex(), controller.signal);
      } catch (err) {
        if (controller.signal.aborted) break;
        throw err;
      }
      result = read();
    }
    return controller.signal.aborted ? read() : result;
  } finally {
    unwatch();
    clearTimeout(timer);
    reply.raw.off('close', onClose);
    ctx.waits.delete(controller);
  }
}
