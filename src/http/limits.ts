// HTTP limits, each a flag (docs/security.md, "Limits"): the body size is
// fastify's bodyLimit (413); requests per second per client address use
// @fastify/rate-limit (429 with Retry-After); blocking queries held at once by
// one client address are counted here (429 with Retry-After).
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HubError } from '../errors';
import type { HttpContext } from './context';

/** Seconds a client is told to wait before retrying a refused blocking query. */
const BLOCKING_RETRY_AFTER_S = 1;

function isBlocking(req: FastifyRequest): boolean {
  if (req.method !== 'GET') return false;
  const index = (req.query as Record<string, unknown> | undefined)?.index;
  const text = Array.isArray(index) ? String(index.at(-1)) : index === undefined ? '' : String(index);
  return text !== '' && text !== '0';
}

export function installLimits(app: FastifyInstance, ctx: HttpContext): void {
  const { limits } = ctx.config;
  if (limits.httpRateLimit > 0) {
    // Registered as a root onRequest hook once the plugin has loaded, so it also
    // covers routes added before it (its own `global` mode only sees later ones).
    void app.register(rateLimit, { global: false });
    app.after(() => {
      app.addHook(
        'onRequest',
        app.rateLimit({
          max: limits.httpRateLimit,
          timeWindow: 1000,
          errorResponseBuilder: (_req, context) =>
            new HubError(
              'RATE_LIMITED',
              `rate limit exceeded: at most ${context.max} requests per second per client (--http-rate-limit); retry in ${context.after}`,
            ),
        }),
      );
    });
  }

  const held = new Map<string, number>();
  app.addHook('onRequest', (req, reply, done) => {
    if (!isBlocking(req)) return done();
    const client = req.ip;
    const n = held.get(client) ?? 0;
    if (n >= limits.httpMaxBlockingPerClient) {
      reply.header('Retry-After', String(BLOCKING_RETRY_AFTER_S));
      return done(
        new HubError(
          'RATE_LIMITED',
          `too many blocking queries from this client: at most ${limits.httpMaxBlockingPerClient} at once (--http-max-blocking-per-client)`,
        ),
      );
    }
    held.set(client, n + 1);
    // 'close' fires once the answer is sent or the client went away, whichever ends the query.
    reply.raw.once('close', () => {
      const left = (held.get(client) ?? 1) - 1;
      if (left <= 0) held.delete(client);
      else held.set(client, left);
    });
    done();
  });
}
