// /v1/health/*: instances with their checks, and checks by service, node, state.
import type { FastifyInstance } from 'fastify';
import type { HealthStatus } from '../../catalog/types';
import { invalid } from '../../errors';
import type { HttpContext } from '../context';
import { blockingRead } from '../blocking';
import { streamingRead } from '../views';
import { sendJson } from '../reply';
import { flag, many } from '../shapes';

type NameParams = { Params: { name: string } };
const STATES = ['any', 'passing', 'warning', 'critical'] as const;

export function healthRoutes(app: FastifyInstance, ctx: HttpContext): void {
  app.get<NameParams>('/v1/health/service/:name', async (req, reply) => {
    const query = req.query as Record<string, unknown>;
    const passing = flag(query, 'passing');
    const tags = many(query.tag);
    // The view applies ?tag (all required, case-insensitive) and ?passing (every
    // check passing; warning is not passing), as Consul's health view does.
    const key = { kind: 'service-health', service: req.params.name, tags, passingOnly: passing } as const;
    return sendJson(reply, await streamingRead(ctx, req, reply, key));
  });

  app.get<NameParams>('/v1/health/checks/:name', async (req, reply) => {
    return sendJson(reply, await blockingRead(ctx, req, reply, () => ctx.catalog.serviceChecks(req.params.name)));
  });

  app.get<NameParams>('/v1/health/node/:name', async (req, reply) => {
    return sendJson(reply, await blockingRead(ctx, req, reply, () => ctx.catalog.nodeChecks(req.params.name)));
  });

  app.get<{ Params: { state: string } }>('/v1/health/state/:state', async (req, reply) => {
    const state = req.params.state;
    if (!(STATES as readonly string[]).includes(state)) {
      throw invalid('state', `Invalid check state "${state}": expected one of ${STATES.join(', ')}`);
    }
    const checks = await blockingRead(ctx, req, reply, () => ctx.catalog.checksInState(state as HealthStatus | 'any'));
    return sendJson(reply, checks);
  });
}
