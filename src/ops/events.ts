// The operator event stream (GET /v1/ops/events, server-sent events): the
// catalog index moving, each push and each ACK/NACK, rollout state changes, a
// node's stream closing.
// The dashboard listens to it instead of polling. Each client has a bounded
// queue: one that does not keep up is disconnected (EventSource reconnects and
// re-reads the state), never buffered without limit.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { authzOf, watchTokenRights } from '../http/acl';
import { policy } from '../http/route-policy';

export interface OpsEvent {
  type: 'index' | 'push' | 'answer' | 'rollout' | 'stream';
  data: unknown;
}

export interface EventBus {
  publish(e: OpsEvent): void;
  register(app: FastifyInstance): void;
  close(): void;
  /** Connected listeners (tests, metrics). */
  size(): number;
}

/**
 * Calls `deny` once the stream's token stops granting operator:read (deleted,
 * expired, its policy changed): the right is checked at open by the ACL gate
 * and again whenever the token's rights may have changed, as blocking queries are.
 */
function endWhenDenied(app: FastifyInstance, req: FastifyRequest, deny: () => void): () => void {
  const acl = app.xdshubAcl;
  let stop = () => {};
  const check = () => {
    if (authzOf(acl, req).allowed('operator', 'read')) return watch();
    deny();
  };
  const watch = () => {
    const changed = new AbortController();
    changed.signal.addEventListener('abort', () => {
      stop();
      try {
        check();
      } catch {
        deny(); // the token is gone: resolving it throws
      }
    });
    stop = watchTokenRights(acl, req, changed);
  };
  watch();
  return () => stop();
}

/** Bytes a client may have unsent before it is dropped. */
const MAX_PENDING_BYTES = 1 << 20;

export function createEventBus(): EventBus {
  const clients = new Set<{ write(text: string): boolean; end(): void; pending(): number }>();
  let seq = 0;
  return {
    publish(e) {
      if (clients.size === 0) return;
      const text = `id: ${++seq}\nevent: ${e.type}\ndata: ${JSON.stringify(e.data)}\n\n`;
      for (const c of clients) {
        if (c.pending() > MAX_PENDING_BYTES) {
          clients.delete(c);
          c.end();
        } else c.write(text);
      }
    },
    register(app) {
      // Open streams would hold the server's close: end them first.
      app.addHook('preClose', (done) => {
        for (const c of clients) c.end();
        clients.clear();
        done();
      });
      // EventSource cannot send headers, so the dashboard gives its token as ?token=: the ACL gate
      // reads it where Consul does (?token=, then X-Consul-Token; src/request-token.ts) and resolves
      // it as any token. Request logging is off, so the URL carrying it is never logged.
      app.get('/v1/ops/events', policy.needs('operator', 'read'), (req, reply) => {
        reply.hijack();
        const res = reply.raw;
        res.writeHead(200, {
          'content-type': 'text/event-stream',
          'cache-control': 'no-cache',
          connection: 'keep-alive',
          'x-accel-buffering': 'no',
        });
        res.write(': xdshub events\n\n');
        const client = { write: (t: string) => res.write(t), end: () => res.end(), pending: () => res.writableLength };
        clients.add(client);
        const ping = setInterval(() => res.write(': ping\n\n'), 15_000);
        const stopWatch = endWhenDenied(app, req, () => {
          res.write('event: denied\ndata: {"reason":"the token no longer grants operator:read"}\n\n');
          res.end();
        });
        req.raw.on('close', () => {
          clearInterval(ping);
          stopWatch();
          clients.delete(client);
        });
      });
    },
    close() {
      for (const c of clients) c.end();
      clients.clear();
    },
    size: () => clients.size,
  };
}
