// GET /metrics: Prometheus text from the hub's own registry.
import type { FastifyInstance } from 'fastify';
import type { HttpContext } from '../context';
import { policy } from '../route-policy';

export function metricsRoutes(app: FastifyInstance, ctx: HttpContext): void {
  app.get('/metrics', policy.needs('operator', 'read'), async (_req, reply) => {
    const text = await ctx.metrics.registry.metrics();
    return reply.code(200).type(ctx.metrics.registry.contentType).send(text);
  });
}
