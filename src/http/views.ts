// Reads answered from materialized views, as Consul's streaming backend does:
// /v1/health/service, /v1/catalog/service(s) and config entry reads. The view
// store shares one materializer per (topic, subject, token, filter) among all
// readers, so a thousand blocking queries on one service cost one view.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ViewKey, ViewValue } from '../materializer/types';
import { parseBlocking } from './blocking';
import type { HttpContext } from './context';
import { watchTokenRights } from './acl';

/**
 * A plain (non-blocking) read waits at most this long for its view to catch up
 * with what the catalog already applied. In-process that takes microseconds;
 * the bound only matters if a view's source is stuck.
 */
const CATCH_UP_MS = 2_000;


/**
 * Reads a view; with `?index=N&wait=D`, waits until the view moves past N or
 * the wait ends. Without an index, still waits until the view holds every change
 * to its subject that the catalog has applied, so a client reads its own writes.
 */
export async function streamingRead<K extends ViewKey>(
  ctx: HttpContext,
  req: FastifyRequest,
  reply: FastifyReply,
  key: K,
  options: { untilChanged?: boolean } = {},
): Promise<ViewValue<K>> {
  const params = parseBlocking(req.query as Record<string, unknown>);
  const applied = ctx.viewTarget(key);
  const caughtUp = applied > 0n ? applied - 1n : 0n;
  let minIndex = caughtUp;
  let waitMs = CATCH_UP_MS;
  // An index from the future (state went backwards) is answered at once, as in blockingRead.
  const blocking = params !== undefined && params.index <= ctx.catalog.lastIndex();
  if (blocking) {
    // A filtered view first catches up, then waits for its content to change (below).
    if (params.index > minIndex && !options.untilChanged) minIndex = params.index;
    // Consul adds up to wait/16 of jitter so that many watchers don't return together.
    waitMs = params.waitMs + Math.floor(Math.random() * (params.waitMs / 16));
  }

  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), waitMs);
  const onClose = () => controller.abort();
  reply.raw.once('close', onClose);
  ctx.waits.add(controller);
  const unwatch = watchTokenRights(ctx.acl, req, controller);
  try {
    // Views are shared by every token (the hub's own, unfiltered); the route filters what this token may read.
    const read = (min: bigint) => ctx.views.get(key, { token: '', minIndex: min, signal: controller.signal });
    let result = await read(minIndex);
    if (blocking && options.untilChanged && result.index <= params.index) {
      // A filtered view moves on every change to its service, matching or not.
      // Its result is the same frozen array until what passes the filter
      // changes, so the query waits for a new array, not a new index.
      const seen = result.value;
      while (result.value === seen && !controller.signal.aborted) result = await read(result.index);
    }
    reply.header('X-Consul-Index', String(result.index > 0n ? result.index : 1n));
    reply.header('X-Consul-Query-Backend', 'streaming');
    return result.value;
  } finally {
    unwatch();
    clearTimeout(timer);
    reply.raw.off('close', onClose);
    ctx.waits.delete(controller);
  }
}
