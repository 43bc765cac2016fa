// /v1/status/*: one hub is its own leader and only peer, in Consul's host:port form.
// While the hub cannot write (its Redis log is unreachable) it has no leader: "",
// as a Consul server answers without quorum.
import type { FastifyInstance } from 'fastify';
import type { HttpContext } from '../context';
import { sendJson } from '../reply';
import { policy } from '../route-policy';

export function statusRoutes(app: FastifyInstance, ctx: HttpContext): void {
  const self = `${ctx.identity.address}:${ctx.config.grpcPort}`;
  app.get('/v1/status/leader', policy.public, async (_req, reply) =>
    sendJson(reply, (ctx.hasLeader?.() ?? true) ? self : ''),
  );
  app.get('/v1/status/peers', policy.public, async (_req, reply) => sendJson(reply, [self]));
}
