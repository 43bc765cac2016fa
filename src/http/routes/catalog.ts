// /v1/catalog/*: register and deregister (writes) and the blocking reads.
import type { FastifyInstance } from 'fastify';
import type { HttpContext } from '../context';
import { blockingRead } from '../blocking';
import { streamingRead } from '../views';
import { sendJson } from '../reply';
import { many, serviceNode } from '../shapes';
import { deregisterCommand, registerCommand } from '../translate/catalog';
import { submitOrThrow } from '../write';

type NameParams = { Params: { name: string } };

export function catalogRoutes(app: FastifyInstance, ctx: HttpContext): void {
  const defaults = { datacenter: ctx.config.datacenter };

  app.put('/v1/catalog/register', async (req, reply) => {
    await submitOrThrow(ctx, reply, registerCommand(req.body, defaults));
    return sendJson(reply, true);
  });

  app.put('/v1/catalog/deregister', async (req, reply) => {
    await submitOrThrow(ctx, reply, deregisterCommand(req.body, defaults));
    return sendJson(reply, true);
  });

  app.get('/v1/catalog/services', async (req, reply) => {
    // Names and the index come from the service-list view; tags are not in
    // ServiceList events, so they are read from the catalog, which is at least as new.
    const names = await streamingRead(ctx, req, reply, { kind: 'service-list' });
    const tags = ctx.catalog.services().value;
    return sendJson(reply, Object.fromEntries(names.map((s) => [s.Name, tags[s.Name] ?? []])));
  });

  app.get<NameParams>('/v1/catalog/service/:name', async (req, reply) => {
    const tags = many((req.query as Record<string, unknown>).tag);
    const key = { kind: 'service-health', service: req.params.name, tags } as const;
    return sendJson(reply, (await streamingRead(ctx, req, reply, key)).map(serviceNode));
  });

  app.get('/v1/catalog/nodes', async (req, reply) => {
    return sendJson(reply, await blockingRead(ctx, req, reply, () => ctx.catalog.nodes()));
  });

  app.get<NameParams>('/v1/catalog/node/:name', async (req, reply) => {
    const found = await blockingRead(ctx, req, reply, () => ctx.catalog.node(req.params.name));
    // Consul answers an unknown node with 200 and null; services are keyed by ID.
    if (!found) return sendJson(reply, null);
    return sendJson(reply, { Node: found.Node, Services: Object.fromEntries(found.Services.map((s) => [s.ID, s])) });
  });
}
