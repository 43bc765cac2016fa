// Consul blocking queries: `?index=N&wait=D`, for catalog reads (here) and view
// reads (views.ts), both in one wait window (withinWait). A catalog read waits
// for the indexes it is read from (catalog.waitForChange — no polling, and no
// wake-up for writes elsewhere) and answers as soon as its own index passes N,
// or when the wait ends (with the current data).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Indexed } from '../catalog/catalog';
import { parseDurationMs } from '../config';
import { invalid } from '../errors';
import { watchTokenRights } from './acl';
import type { HttpContext } from './context';

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
 * hub's is kept only when the hub's log is shared (ctx.logHead): it may be
 * another hub's, and `caughtUp` decides inside the wait. Otherwise it is
 * another log's (a memory-store hub restarted): undefined, so the read answers
 * now, the client sees the lower index and resets, as Consul's clients are told to.
 */
export function blockingParams(ctx: HttpContext, req: FastifyRequest): BlockingParams | undefined {
  const params = parseBlocking(req.query as Record<string, unknown>);
  return params && (params.index <= ctx.catalog.lastIndex() || ctx.logHead) ? params : undefined;
}

/** At most this long for the shared log to say whether it holds a query's index; past it, the query answers now. */
export const LOG_HEAD_ASK_MS = 5_000;

/**
 * `ask` shared: while one is out, every caller gets it; the next call after it
 * settles, or after `boundMs` (a stalled ask is not waited on again), asks anew.
 * So many queries moved to a hub behind cost one ask of the log, not one each.
 */
export function sharedAsk<T>(ask: () => Promise<T>, boundMs = LOG_HEAD_ASK_MS): () => Promise<T> {
  let out: Promise<T> | undefined;
  return () => {
    if (out) return out;
    const current = ask();
    out = current;
    const forget = () => {
      clearTimeout(timer);
      if (out === current) out = undefined;
    };
    const timer = setTimeout(forget, boundMs).unref();
    current.then(forget, forget);
    return current;
  };
}

/** `ask`'s answer, or undefined when it fails, `signal` aborts or `ms` pass first. */
function answerWithin<T>(ask: Promise<T>, signal: AbortSignal, ms: number): Promise<T | undefined> {
  const stop = AbortSignal.any([signal, AbortSignal.timeout(ms)]);
  if (stop.aborted) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const give = () => resolve(undefined);
    stop.addEventListener('abort', give, { once: true });
    const settle = (value: T | undefined) => {
      stop.removeEventListener('abort', give);
      resolve(value);
    };
    ask.then(settle, () => settle(undefined));
  });
}

/**
 * Inside a query's wait, for an index ahead of this hub: resolves true once the
 * hub has applied it, when the shared log holds it (another hub, further along,
 * gave it: the query waits, as Consul's servers do for an index they have not
 * reached, so a client moved between hubs keeps its index). False when the
 * client should reset instead: the log does not hold it (another log's index),
 * the log did not say within LOG_HEAD_ASK_MS, or the wait ended first.
 */
export async function caughtUp(ctx: HttpContext, index: bigint, signal: AbortSignal): Promise<boolean> {
  if (index <= ctx.catalog.lastIndex()) return true;
  if (!ctx.logHead) return false;
  let head = await answerWithin(ctx.logHead(), signal, LOG_HEAD_ASK_MS);
  // Asks are shared: one that began before this query arrived may predate its index.
  if (head !== undefined && head < index) head = await answerWithin(ctx.logHead(), signal, LOG_HEAD_ASK_MS);
  if (head === undefined || head < index) return false;
  try {
    await ctx.catalog.waitForIndex(index - 1n, signal);
    return true;
  } catch (err) {
    if (signal.aborted) return false;
    throw err;
  }
}

/**
 * Why a wait ended early: its client went away. Nobody reads the answer, so
 * none is built: no re-read, no filtering, no serialization (that was most of
 * what a disconnect cost, about 1 ms for a large read, so thousands of queries
 * leaving together held the next write back for seconds). The route ends with
 * this error instead; the error handler writes it to the closed socket as
 * status 499 (nginx's "client closed request"), a few bytes.
 */
export class ClientGone extends Error {
  readonly statusCode = 499;
  constructor() {
    super('client closed the request');
    this.name = 'ClientGone';
  }
}

/** What a wait ends with once its signal aborted: `read()`, the current data, unless the client went away. */
function endRead<T>(signal: AbortSignal, read: () => T): T {
  if (signal.reason instanceof ClientGone) throw signal.reason;
  return read();
}

/** Consul adds up to wait/16 of random jitter so that many watchers don't return together. */
export function withJitter(waitMs: number): number {
  return waitMs + Math.floor(Math.random() * (waitMs / 16));
}

/**
 * The wait window every blocking read (catalog or view) runs in: `run`'s
 * signal aborts when `waitMs` passes, the client goes away, the hub closes
 * (app.ts aborts ctx.waits before closing), or the rights of the request's
 * token change (acl.ts). Each read then answers with what it has, except when
 * the client went away: then `withinWait` throws ClientGone and no answer is built.
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
  // The response is not done while the query waits: a 'close' now is the client leaving.
  const onClose = () => controller.abort(new ClientGone());
  reply.raw.once('close', onClose);
  ctx.waits.add(controller);
  const unwatch = watchTokenRights(ctx.acl, req, controller);
  try {
    const result = await run(controller.signal);
    // A view read ends with its current result however the wait ended; a client that left gets none.
    if (controller.signal.reason instanceof ClientGone) throw controller.signal.reason;
    return result;
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
  const params = blockingParams(ctx, req);
  let result = read();
  if (params && BigInt(result.index) <= params.index) {
    const first = result;
    result = await withinWait(ctx, req, reply, withJitter(params.waitMs), async (signal) => {
      let r = first;
      if (params.index > ctx.catalog.lastIndex()) {
        // Ahead of this hub: first catch up with the client's index, or answer now (the client resets).
        if (!(await caughtUp(ctx, params.index, signal))) return endRead(signal, read);
        r = read();
        // Caught up past the client's index: what changed since is not known here, so answer.
        if (BigInt(r.index) > params.index) return r;
      }
      const seen = options.untilChanged ? JSON.stringify(r.value) : undefined;
      const done = (x: Indexed<T>) =>
        BigInt(x.index) > params.index && (seen === undefined || JSON.stringify(x.value) !== seen);
      while (!done(r) && !signal.aborted) {
        try {
          await ctx.catalog.waitForChange(r.watch, signal);
        } catch (err) {
          if (signal.aborted) break;
          throw err;
        }
        r = read();
      }
      return signal.aborted ? endRead(signal, read) : r;
    });
  }
  reply.header('X-Consul-Index', String(result.index));
  return result.value;
}
