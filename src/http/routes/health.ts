// /v1/health/*: instances with their checks, and checks by service, node and
// state, with ?filter, ?node-meta and ?near where Consul takes them.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { canReadCheck, canReadInstance } from '../../acl/catalog-rules';
import type { Indexed } from '../../catalog/catalog';
import type { HealthCheck, HealthStatus } from '../../catalog/types';
import { invalid } from '../../errors';
import { CHECK_SERVICE_NODE_FIELDS, HEALTH_CHECK_FIELDS } from '../../filter/index';
import { filterRead } from '../acl';
import { blockingRead } from '../blocking';
import type { HttpContext } from '../context';
import { ingressInstances } from '../gateways';
import { filterParam, filterText, narrow, nearParam, nodeMetaParam, required, sortNear } from '../query';
import { sendJson } from '../reply';
import { policy } from '../route-policy';
import { agentSynced, centralConfigOf, flag, many } from '../shapes';
import { streamingRead } from '../views';

type NameParams = { Params: { name: string } };
type Query = Record<string, unknown>;
const STATES = ['any', 'passing', 'warning', 'critical'] as const;

export function healthRoutes(app: FastifyInstance, ctx: HttpContext): void {
  const agentNode = ctx.identity.nodeName;
  instanceRoutes(app, ctx, agentNode);
  checkRoutes(app, ctx, agentNode);
}

function instanceRoutes(app: FastifyInstance, ctx: HttpContext, agentNode: string): void {
  app.get<NameParams>('/v1/health/service/:name', policy.checked, async (req, reply) =>
    sendJson(reply, await instances(ctx, agentNode, req, reply, req.params.name, false)),
  );
  app.get<NameParams>('/v1/health/connect/:name', policy.checked, async (req, reply) =>
    sendJson(reply, await instances(ctx, agentNode, req, reply, req.params.name, true)),
  );

  // Instances of the ingress gateways that expose the service.
  app.get<NameParams>('/v1/health/ingress/:name', policy.checked, async (req, reply) => {
    const service = required(req.params.name, 'service', 'Missing service name');
    const query = req.query as Query;
    const filter = filterParam(query, CHECK_SERVICE_NODE_FIELDS);
    const nodeMeta = nodeMetaParam(query);
    const passing = flag(query, 'passing');
    const tags = many(query.tag);
    const narrowed = filter !== undefined || nodeMeta !== undefined;
    const found = await blockingRead(
      ctx,
      req,
      reply,
      () => {
        const all = ingressInstances(ctx.catalog, service);
        const value = narrow(all.value, { filter, nodeMeta, metaOf: (c) => c.Node.Meta }).filter(
          (c) =>
            (!passing || c.Checks.every((k) => k.Status === 'passing')) &&
            tags.every((t) => c.Service.Tags.includes(t)),
        );
        return { ...all, value };
      },
      { untilChanged: narrowed },
    );
    return sendJson(
      reply,
      sortNear(
        filterRead(ctx.acl, req, reply, found, canReadInstance),
        nearParam(query, agentNode),
        (c) => c.Node.Node,
      ),
    );
  });
}

/** Instances from the health view (ServiceHealth, or ServiceHealthConnect for `connect`). */
async function instances(
  ctx: HttpContext,
  agentNode: string,
  req: FastifyRequest,
  reply: FastifyReply,
  service: string,
  connect: boolean,
) {
  const query = req.query as Query;
  required(service, 'service', 'Missing service name');
  filterParam(query, CHECK_SERVICE_NODE_FIELDS); // a bad filter is a 400 before any view starts
  const filter = filterText(query);
  // The view applies ?tag (all required, case-insensitive), ?passing (every
  // check passing; warning is not passing), ?node-meta and ?filter.
  const key = {
    kind: 'service-health',
    service,
    connect,
    tags: many(query.tag),
    passingOnly: flag(query, 'passing'),
    nodeMeta: nodeMetaParam(query),
    ...(filter ? { filter } : {}),
  } as const;
  const found = filterRead(
    ctx.acl,
    req,
    reply,
    await streamingRead(ctx, req, reply, key, { untilChanged: filter !== undefined }),
    canReadInstance,
  );
  const central = centralConfigOf(ctx.catalog);
  return sortNear(found, nearParam(query, agentNode), (c) => c.Node.Node).map((c) => {
    const s = agentSynced(c.Service, c.Node.Node, agentNode, central);
    return s === c.Service ? c : { ...c, Service: s };
  });
}

function checkRoutes(app: FastifyInstance, ctx: HttpContext, agentNode: string): void {
  const checksOf = (req: FastifyRequest, reply: FastifyReply, read: () => Indexed<HealthCheck[]>, withMeta: boolean) =>
    checks(ctx, agentNode, req, reply, read, withMeta);
  app.get<NameParams>('/v1/health/checks/:name', policy.checked, async (req, reply) =>
    checksOf(
      req,
      reply,
      () => ctx.catalog.serviceChecks(required(req.params.name, 'service', 'Missing service name')),
      true,
    ),
  );
  app.get<NameParams>('/v1/health/node/:name', policy.checked, async (req, reply) =>
    checksOf(req, reply, () => ctx.catalog.nodeChecks(required(req.params.name, 'node', 'Missing node name')), false),
  );

  app.get<{ Params: { state: string } }>('/v1/health/state/:state', policy.checked, async (req, reply) => {
    const state = req.params.state;
    if (!(STATES as readonly string[]).includes(state)) {
      throw invalid('state', `Invalid check state "${state}": expected one of ${STATES.join(', ')}`);
    }
    return checksOf(req, reply, () => ctx.catalog.checksInState(state as HealthStatus | 'any'), true);
  });
}

/** A list of checks with ?filter and (where Consul takes it) ?node-meta and ?near. */
async function checks(
  ctx: HttpContext,
  agentNode: string,
  req: FastifyRequest,
  reply: FastifyReply,
  read: () => Indexed<HealthCheck[]>,
  withMeta: boolean,
) {
  const query = req.query as Query;
  const filter = filterParam(query, HEALTH_CHECK_FIELDS);
  const nodeMeta = withMeta ? nodeMetaParam(query) : undefined;
  const narrowed = filter !== undefined || nodeMeta !== undefined;
  const metaOf = (c: HealthCheck) => ctx.catalog.node(c.Node).value?.Node.Meta;
  const found = await blockingRead(
    ctx,
    req,
    reply,
    () => {
      const all = read();
      return narrowed ? { ...all, value: narrow(all.value, { filter, nodeMeta, metaOf }) } : all;
    },
    { untilChanged: narrowed },
  );
  const readable = filterRead(ctx.acl, req, reply, found, canReadCheck);
  return sendJson(reply, withMeta ? sortNear(readable, nearParam(query, agentNode), (c) => c.Node) : readable);
}
