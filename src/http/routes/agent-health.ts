// /v1/agent/health/service/name/:name and /id/:id: the aggregated health of
// the hub node's own services, as status codes a load balancer can act on
// (Consul's: 200 passing, 429 warning, 503 critical or maintenance, 404 unknown).
// `?format=text` (or Accept: text/plain) answers the status alone.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { HealthCheck, NodeService } from '../../catalog/types';
import { requireAccess } from '../acl';
import type { HttpContext } from '../context';
import { required } from '../query';
import { sendJson, sendText } from '../reply';
import { policy } from '../route-policy';
import { agentService, centralConfigOf, many } from '../shapes';

/** Check IDs of maintenance mode (Consul's): they make a service "maintenance" whatever their status. */
export const NODE_MAINT_ID = '_node_maintenance';
export const SERVICE_MAINT_PREFIX = '_service_maintenance:';

/** Consul's api.HealthChecks.AggregatedStatus. */
export function aggregatedStatus(checks: readonly HealthCheck[]): string {
  let critical = false;
  let warning = false;
  for (const c of checks) {
    if (c.CheckID === NODE_MAINT_ID || c.CheckID.startsWith(SERVICE_MAINT_PREFIX)) return 'maintenance';
    if (c.Status === 'critical') critical = true;
    else if (c.Status === 'warning') warning = true;
  }
  return critical ? 'critical' : warning ? 'warning' : 'passing';
}

const CODES: Record<string, number> = { passing: 200, warning: 429 };

function wantsText(req: FastifyRequest): boolean {
  const accept = req.headers.accept;
  if (typeof accept === 'string' && accept.startsWith('text/plain')) return true;
  const format = many((req.query as Record<string, unknown>).format).at(-1);
  return format === 'text';
}

export function agentHealthRoutes(app: FastifyInstance, ctx: HttpContext): void {
  const node = ctx.identity.nodeName;

  /** One service with its checks (the node's checks included, as Consul counts them). */
  function info(service: NodeService, all: readonly HealthCheck[]) {
    const checks = all.filter((c) => c.ServiceID === service.ID || c.ServiceID === '');
    const status = aggregatedStatus(checks);
    return {
      code: CODES[status] ?? 503,
      body: {
        AggregatedStatus: status,
        Service: agentService(service, ctx.config.datacenter, centralConfigOf(ctx.catalog)),
        Checks: checks,
      },
    };
  }

  function answer(req: FastifyRequest, reply: FastifyReply, code: number, status: string, body: unknown): FastifyReply {
    return wantsText(req) ? sendText(reply, code, status) : sendJson(reply, body, code);
  }

  app.get<{ Params: { id: string } }>('/v1/agent/health/service/id/:id', policy.checked, async (req, reply) => {
    required(req.params.id, 'id', 'Missing serviceID');
    const service = ctx.catalog.node(node).value?.Services.find((s) => s.ID === req.params.id);
    // Consul checks service:read on the service (an unknown ID is checked against the ID itself).
    requireAccess(ctx.acl, req, 'service', 'read', service?.Service ?? req.params.id);
    if (!service) {
      const reason = `ServiceId ${req.params.id} not found`;
      return answer(req, reply, 404, reason, { AggregatedStatus: 'critical', Service: null, Checks: null });
    }
    const { code, body } = info(service, ctx.catalog.nodeChecks(node).value);
    return answer(req, reply, code, body.AggregatedStatus, body);
  });

  app.get<{ Params: { name: string } }>('/v1/agent/health/service/name/:name', policy.checked, async (req, reply) => {
    required(req.params.name, 'name', 'Missing service Name');
    requireAccess(ctx.acl, req, 'service', 'read', req.params.name);
    const services = (ctx.catalog.node(node).value?.Services ?? []).filter((s) => s.Service === req.params.name);
    const checks = ctx.catalog.nodeChecks(node).value;
    // The worst of the instances: passing 200 < warning 429 < critical/maintenance 503.
    let code = 404;
    let status = `ServiceName ${req.params.name} Not Found`;
    const bodies = services.map((s) => {
      const one = info(s, checks);
      if (code === 404 || one.code > code) {
        code = one.code;
        status = one.body.AggregatedStatus;
      }
      return one.body;
    });
    return answer(req, reply, code, status, bodies);
  });
}
