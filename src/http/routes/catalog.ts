// /v1/catalog/*: register and deregister (writes) and the blocking reads, with
// ?filter, ?node-meta and ?near where Consul takes them.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { canReadInstance, canReadNode } from '../../acl/catalog-rules';
import { serviceNode } from '../../catalog/service-node';
import type { NodeService } from '../../catalog/types';
import { NODE_FIELDS, NODE_SERVICE_FIELDS, SERVICE_NODE_FIELDS } from '../../filter/index';
import { authzOf, filterRead, markFiltered, requireAccess } from '../acl';
import { blockingRead } from '../blocking';
import type { HttpContext } from '../context';
import { gatewayServices } from '../gateways';
import { filterParam, filterText, narrow, nearParam, nodeMetaParam, required, sortNear } from '../query';
import { sendJson } from '../reply';
import { policy } from '../route-policy';
import { agentSynced, centralConfigOf, many } from '../shapes';
import { deregisterCommand, registerCommand } from '../translate/catalog';
import { streamingRead } from '../views';
import { authorizeWrite, submitOrThrow } from '../write';

type NameParams = { Params: { name: string } };
type Query = Record<string, unknown>;

export function catalogRoutes(app: FastifyInstance, ctx: HttpContext): void {
  writeRoutes(app, ctx);
  serviceRoutes(app, ctx);
  nodeRoutes(app, ctx);

  // Services an ingress gateway exposes, from its config entry.
  app.get<NameParams>('/v1/catalog/gateway-services/:name', policy.checked, async (req, reply) => {
    const gateway = required(req.params.name, 'gateway', 'Missing gateway name');
    requireAccess(ctx.acl, req, 'service', 'read', gateway);
    const found = await blockingRead(ctx, req, reply, () => gatewayServices(ctx.catalog, gateway));
    return sendJson(
      reply,
      filterRead(ctx.acl, req, reply, found, (authz, g) => authz.allowed('service', 'read', g.Service.Name)),
    );
  });
}

function writeRoutes(app: FastifyInstance, ctx: HttpContext): void {
  const defaults = { datacenter: ctx.config.datacenter };

  app.put('/v1/catalog/register', policy.write, async (req, reply) => {
    const command = registerCommand(req.body, defaults);
    authorizeWrite(ctx, req, command);
    await submitOrThrow(ctx, reply, command);
    return sendJson(reply, true);
  });

  app.put('/v1/catalog/deregister', policy.write, async (req, reply) => {
    const command = deregisterCommand(req.body, defaults);
    authorizeWrite(ctx, req, command);
    await submitOrThrow(ctx, reply, command);
    return sendJson(reply, true);
  });
}

function serviceRoutes(app: FastifyInstance, ctx: HttpContext): void {
  const agentNode = ctx.identity.nodeName;

  // One datacenter: the hub's own.
  app.get('/v1/catalog/datacenters', policy.public, async (_req, reply) => sendJson(reply, [ctx.config.datacenter]));

  app.get('/v1/catalog/services', policy.checked, async (req, reply) => {
    const query = req.query as Query;
    const filter = filterParam(query, SERVICE_NODE_FIELDS);
    const nodeMeta = nodeMetaParam(query);
    // Names and the index come from the service-list view; tags are not in
    // ServiceList events, so they are read from the catalog, which is at least as new.
    const all = await streamingRead(ctx, req, reply, { kind: 'service-list' });
    const names = filterRead(ctx.acl, req, reply, all, (authz, s) => authz.allowed('service', 'read', s.Name));
    if (!filter && !nodeMeta) {
      const tags = ctx.catalog.services().value;
      return sendJson(reply, Object.fromEntries(names.map((s) => [s.Name, tags[s.Name] ?? []])));
    }
    // Filtered: a service is listed when one of its instances passes, with the tags of those that pass.
    const out: Record<string, string[]> = {};
    for (const { Name } of names) {
      const kept = narrow(ctx.catalog.serviceInstances(Name).value, {
        filter,
        nodeMeta,
        metaOf: (c) => c.Node.Meta,
        view: serviceNode,
      });
      if (kept.length > 0) out[Name] = [...new Set(kept.flatMap((c) => c.Service.Tags))].sort();
    }
    return sendJson(reply, out);
  });

  // Instances of a service; on /connect, its Connect-capable ones (its proxies and Connect-native instances).
  for (const [path, connect] of [
    ['/v1/catalog/service/:name', false],
    ['/v1/catalog/connect/:name', true],
  ] as const) {
    app.get<NameParams>(path, policy.checked, async (req, reply) => {
      const name = required(req.params.name, 'service', 'Missing service name');
      return sendJson(reply, await serviceNodes(ctx, agentNode, req, reply, name, connect));
    });
  }
}

async function serviceNodes(
  ctx: HttpContext,
  agentNode: string,
  req: FastifyRequest,
  reply: FastifyReply,
  name: string,
  connect: boolean,
) {
  const query = req.query as Query;
  filterParam(query, SERVICE_NODE_FIELDS); // a bad filter is a 400 before any view starts
  const filter = filterText(query);
  const key = {
    kind: 'service-health',
    service: name,
    connect,
    tags: many(query.tag),
    nodeMeta: nodeMetaParam(query),
    ...(filter ? { filter, filterOn: 'service-node' as const } : {}),
  } as const;
  const found = filterRead(
    ctx.acl,
    req,
    reply,
    await streamingRead(ctx, req, reply, key, { untilChanged: filter !== undefined }),
    canReadInstance,
  );
  const central = centralConfigOf(ctx.catalog);
  return sortNear(found, nearParam(query, agentNode), (c) => c.Node.Node).map((c) =>
    serviceNode({ ...c, Service: agentSynced(c.Service, c.Node.Node, agentNode, central) }),
  );
}

function nodeRoutes(app: FastifyInstance, ctx: HttpContext): void {
  const agentNode = ctx.identity.nodeName;

  app.get('/v1/catalog/nodes', policy.checked, async (req, reply) => {
    const query = req.query as Query;
    const filter = filterParam(query, NODE_FIELDS);
    const nodeMeta = nodeMetaParam(query);
    const narrowed = filter !== undefined || nodeMeta !== undefined;
    const nodes = await blockingRead(
      ctx,
      req,
      reply,
      () => {
        const all = ctx.catalog.nodes();
        return narrowed ? { ...all, value: narrow(all.value, { filter, nodeMeta, metaOf: (n) => n.Meta }) } : all;
      },
      { untilChanged: narrowed },
    );
    return sendJson(
      reply,
      sortNear(filterRead(ctx.acl, req, reply, nodes, canReadNode), nearParam(query, agentNode), (n) => n.Node),
    );
  });

  app.get<NameParams>('/v1/catalog/node/:name', policy.checked, async (req, reply) => {
    const { filtered, read } = nodeRead(
      ctx,
      required(req.params.name, 'node', 'Missing node name'),
      req.query as Query,
    );
    const found = readableNode(ctx, req, reply, await blockingRead(ctx, req, reply, read, { untilChanged: filtered }));
    // Consul answers an unknown node with 200 and null; services are keyed by ID.
    if (!found) return sendJson(reply, null);
    const services = synced(ctx, found);
    return sendJson(reply, { Node: found.Node, Services: Object.fromEntries(services.map((s) => [s.ID, s])) });
  });

  // The same as /node/:n with the services as a list (Consul 1.7+); an unknown node is {Node: null, Services: null}.
  app.get<NameParams>('/v1/catalog/node-services/:name', policy.checked, async (req, reply) => {
    const { filtered, read } = nodeRead(
      ctx,
      required(req.params.name, 'node', 'Missing node name'),
      req.query as Query,
    );
    const found = readableNode(ctx, req, reply, await blockingRead(ctx, req, reply, read, { untilChanged: filtered }));
    return sendJson(reply, found ? { Node: found.Node, Services: synced(ctx, found) } : { Node: null, Services: null });
  });
}

/** A node's services as the catalog shows them: the hub's own node's proxies with central config (shapes.ts). */
function synced(ctx: HttpContext, found: { Node: { Node: string }; Services: NodeService[] }): NodeService[] {
  const central = centralConfigOf(ctx.catalog);
  return found.Services.map((s) => agentSynced(s, found.Node.Node, ctx.identity.nodeName, central));
}

/** The node and its services, with ?filter on the services. */
function nodeRead(ctx: HttpContext, name: string, query: Query) {
  const filter = filterParam(query, NODE_SERVICE_FIELDS);
  return {
    filtered: filter !== undefined,
    read: () => {
      const found = ctx.catalog.node(name);
      if (!found.value || !filter) return found;
      return { ...found, value: { ...found.value, Services: found.value.Services.filter((s) => filter(s)) } };
    },
  };
}

/** The node when its token may read it (else undefined, marked filtered), with the services it may read. */
function readableNode(
  ctx: HttpContext,
  req: FastifyRequest,
  reply: FastifyReply,
  found: ReturnType<ReturnType<typeof nodeRead>['read']>['value'],
) {
  if (!found) return found;
  if (!authzOf(ctx.acl, req).allowed('node', 'read', found.Node.Node)) {
    markFiltered(req, reply);
    return undefined;
  }
  return {
    ...found,
    Services: filterRead(ctx.acl, req, reply, found.Services, (authz, s) =>
      authz.allowed('service', 'read', s.Service),
    ),
  };
}
