// Consul blocking queries: `?index=N&wait=D`, for catalog reads (here) and view
// reads (views.ts), both in one wait window (withinWait). A catalog read waits
// for the indexes it is read from (catalog.waitForChange — no polling, and no
// wake-up for writes elsewhere) and answers as soon as its own index passes N,
// or when the wait ends (with the current data).
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

/**
 * The query's blocking parameters when it must wait. An index ahead of this
 * hub's comes either from another hub on the same shared log (one that applied
 * more of it: the query waits, as Consul's servers do for an index they have
 * not reached, so a client moved between hubs keeps its index) or from another
 * log (a memory-store hub restarted, or a log that was emptied): undefined, so
 * the read answers now, the client sees the lower index and resets, as
 * Consul's clients are told to.
 */
export async function blockingParams(ctx: HttpContext, req: FastifyRequest): Promise<BlockingParams | undefined> {
  const params = parseBlocking(req.query as Record<string, unknown>);
  if (!params || params.index <= ctx.catalog.lastIndex()) return params;
  const head = ctx.logHead ? await ctx.logHead().catch(() => undefined) : undefined;
  return head !== undefined && params.index <= head ? params : undefined;
}

/** Consul adds up to wait/16 of random jitter so that many watchers don't return together. */
export function withJitter(waitMs: number): number {
  return waitMs + Math.floor(Math.random() * (waitMs / 16));
}

/**
 * The wait window every blocking read (catalog or view) runs in: `run`'s
 * signal aborts when `waitMs` passes, the client goes away, the hub closes
 * (app.ts aborts ctx.waits before closing), or the rights of the request's
 * token change (acl.ts). Each read then answers with what it has.
 */
export async function withinWait<R>(
  ctx: HttpContext,
  req: FastifyRequest,
  reply: FastifyReply,
  waitMs: number,
  run: (signal: AbortSignal) => Promise<R>,
): Promise<R> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), waitMs);
  const onClose = () => controller.abort();
  reply.raw.once('close', onClose);
  ctx.waits.add(controller);
  const unwatch = watchTokenRights(ctx.acl, req, controller);
  try {
    return await run(controller.signal);
  } finally {
    unwatch();
    clearTimeout(timer);
    reply.raw.off('close', onClose);
    ctx.waits.delete(controller);
  }
}

/**
 * A catalog read as a blocking query. It waits only for the indexes the read
 * comes from (Indexed.watch): an entry that moves none of them costs it
 * nothing, and one that moves one of them moves its index, so it answers
 * after a single re-read. `untilChanged` (a filtered read, whose index moves
 * with its whole table): it also waits until what passes the filter differs.
 */
export async function blockingRead<T>(
  ctx: HttpContext,
  req: FastifyRequest,
  reply: FastifyReply,
  read: () => Indexed<T>,
  options: { untilChanged?: boolean } = {},
): Promise<T> {
  const params = await blockingParams(ctx, req);
  let result = read();
  if (params && BigInt(result.index) <= params.index) {
    const first = result;
    const seen = options.untilChanged ? JSON.stringify(first.value) : undefined;
    const done = (r: Indexed<T>) => BigInt(r.index) > params.index && (seen === undefined || JSON.stringify(r.value) !== seen);
    result = await withinWait(ctx, req, reply, withJitter(params.waitMs), async (signal) => {
      let r = first;
      while (!done(r) && !signal.aborted) {
        try {
          await ctx.catalog.waitForChange(r.watch, signal);
        } catch (err) {
          if (signal.aborted) break;
          throw err;
        }
        r = read();
      }
      return signal.aborted ? read() : r;
    });
  }
  reply.header('X-Consul-Index', String(result.index));
  return result.value;
}
