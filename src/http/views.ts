// Reads answered from materialized views, as Consul's streaming backend does:
// /v1/health/service, /v1/catalog/service(s) and config entry reads. The view
// store shares one materializer per (topic, subject, token, filter) among all
// readers, so a thousand blocking queries on one service cost one view.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ViewKey, ViewValue } from '../materializer/types';
import { blockingParams, caughtUp, withinWait, withJitter } from './blocking';
import type { HttpContext } from './context';

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
  const params = blockingParams(ctx, req);
  const waitMs = params ? withJitter(params.waitMs) : CATCH_UP_MS;
  const result = await withinWait(ctx, req, reply, waitMs, async (signal) => {
    // Views are shared by every token (the hub's own, unfiltered); the route filters what this token may read.
    const read = (min: bigint) => ctx.views.get(key, { token: '', minIndex: min, signal });
    // An index ahead of this hub: first catch up with it, or answer now (the client resets).
    const blocking = params && (await caughtUp(ctx, params.index, signal)) ? params : undefined;
    const applied = ctx.viewTarget(key);
    let minIndex = applied > 0n ? applied - 1n : 0n;
    // A filtered view first catches up, then waits for its content to change (below).
    if (blocking && blocking.index > minIndex && !options.untilChanged) minIndex = blocking.index;
    let r = await read(minIndex);
    if (blocking && options.untilChanged && r.index <= blocking.index) {
      // A filtered view moves on every change to its service, matching or not.
      // Its result is the same frozen array until what passes the filter
      // changes, so the query waits for a new array, not a new index.
      const seen = r.value;
      while (r.value === seen && !signal.aborted) r = await read(r.index);
    }
    return r;
  });
  reply.header('X-Consul-Index', String(result.index > 0n ? result.index : 1n));
  reply.header('X-Consul-Query-Backend', 'streaming');
  return result.value;
}
