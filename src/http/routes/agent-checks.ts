// /v1/agent/check/register and /deregister/:id, and maintenance mode
// (/v1/agent/maintenance, /v1/agent/service/maintenance/:id) on the hub's own
// node. Maintenance is what Consul does: a critical check named
// _node_maintenance or _service_maintenance:<id>, so the instances leave every
// passing-only read and xDS; turning it off removes the check.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CheckInput, Command } from '../../catalog/commands';
import { createAddressPolicy, parseTarget } from '../../checks/targets';
import { parseGoBool } from '../../config';
import { HubError, invalid } from '../../errors';
import { Body } from '../body';
import type { HttpContext } from '../context';
import { required } from '../query';
import { policy } from '../route-policy';
import { many } from '../shapes';
import { agentNode } from '../translate/agent';
import { parseAgentCheck } from '../translate/checks';
import { authorizeWrite, submitOrThrow } from '../write';
import { NODE_MAINT_ID, SERVICE_MAINT_PREFIX } from './agent-health';

const NODE_REASON = 'Maintenance mode is enabled for this node, but no reason was provided. This is a default message.';
const SERVICE_REASON =
  'Maintenance mode is enabled for this service, but no reason was provided. This is a default message.';

/** ?enable= as Go's strconv.ParseBool, with Consul's texts. */
function enableParam(query: Record<string, unknown>): boolean {
  if (!('enable' in query)) throw invalid('enable', 'Missing value for enable');
  const raw = many(query.enable).at(-1) ?? '';
  const enable = parseGoBool(raw);
  if (enable === undefined) throw invalid('enable', `Invalid value for enable: ${JSON.stringify(raw)}`);
  return enable;
}

export function unknownCheck(id: string): HubError {
  return new HubError('NOT_FOUND', `Unknown check ID "${id}". Ensure that the check ID is passed, not the check name.`);
}

/**
 * Refuses checks the hub would probe at an address it may not probe, or with a
 * target it cannot read, before anything is written (the runner refuses them
 * again at probe time, in case a name resolves elsewhere later).
 */
export function checkTargetsVetter(
  ctx: HttpContext,
): (checks: readonly CheckInput[], fieldOf: (i: number) => string) => Promise<void> {
  const policy = createAddressPolicy(ctx.config.checkAllowCidrs);
  return async (checks, fieldOf) => {
    for (const [i, check] of checks.entries()) {
      for (const kind of ['http', 'tcp', 'grpc'] as const) {
        const text = check.Definition[kind.toUpperCase()];
        if (typeof text !== 'string' || text === '') continue;
        const field = `${fieldOf(i)}.${kind.toUpperCase()}`;
        await policy.resolve(parseTarget(kind, text, field).host, field);
      }
    }
  };
}

export function agentCheckRoutes(app: FastifyInstance, ctx: HttpContext): void {
  const node = ctx.identity.nodeName;
  const vet = checkTargetsVetter(ctx);
  const services = () => ctx.catalog.node(node).value?.Services ?? [];
  const nodeExists = () => ctx.catalog.node(node).value !== undefined;

  /** The register command for one check, after the ACL check (node:write, or service:write for a service check). */
  function registerCommand(req: FastifyRequest, check: CheckInput): Command {
    if (check.ServiceID !== '' && !services().some((s) => s.ID === check.ServiceID)) {
      throw invalid('ServiceID', `ServiceID "${check.ServiceID}" does not exist`);
    }
    const command: Command = {
      type: 'register',
      node: agentNode(ctx.identity),
      checks: [check],
      skipNodeUpdate: nodeExists(),
    };
    authorizeWrite(ctx, req, command);
    return command;
  }

  async function register(req: FastifyRequest, reply: FastifyReply, check: CheckInput): Promise<FastifyReply> {
    await submitOrThrow(ctx, reply, registerCommand(req, check));
    return reply.code(200).send('');
  }

  async function remove(req: FastifyRequest, reply: FastifyReply, checkId: string): Promise<FastifyReply> {
    const command: Command = { type: 'deregister', node, checkId };
    authorizeWrite(ctx, req, command);
    await submitOrThrow(ctx, reply, command);
    return reply.code(200).send('');
  }

  const exists = (checkId: string) => ctx.catalog.ttlCheck(node, checkId) !== undefined;

  app.put('/v1/agent/check/register', policy.checked, async (req, reply) => {
    const check = parseAgentCheck(Body.of(req.body), node);
    const command = registerCommand(req, check); // ACLs before the vetting probes
    await vet([check], () => 'Check');
    await submitOrThrow(ctx, reply, command);
    return reply.code(200).send('');
  });

  app.put<{ Params: { id: string } }>('/v1/agent/check/deregister/:id', policy.checked, async (req, reply) => {
    if (!exists(req.params.id)) throw unknownCheck(req.params.id);
    return remove(req, reply, req.params.id);
  });

  app.put('/v1/agent/maintenance', policy.checked, async (req: FastifyRequest, reply) => {
    const query = req.query as Record<string, unknown>;
    if (!enableParam(query))
      return exists(NODE_MAINT_ID) ? remove(req, reply, NODE_MAINT_ID) : reply.code(200).send('');
    const reason = many(query.reason).at(-1) || NODE_REASON;
    return register(req, reply, maintenanceCheck(node, NODE_MAINT_ID, 'Node Maintenance Mode', reason, ''));
  });

  app.put<{ Params: { id: string } }>('/v1/agent/service/maintenance/:id', policy.checked, async (req, reply) => {
    const query = req.query as Record<string, unknown>;
    const id = required(req.params.id, 'id', 'Missing service ID');
    const enable = enableParam(query);
    if (!services().some((s) => s.ID === id))
      throw new HubError('NOT_FOUND', `No service registered with ID ${JSON.stringify(id)}`);
    const checkId = `${SERVICE_MAINT_PREFIX}${id}`;
    if (!enable) return exists(checkId) ? remove(req, reply, checkId) : reply.code(200).send('');
    const reason = many(query.reason).at(-1) || SERVICE_REASON;
    return register(req, reply, maintenanceCheck(node, checkId, 'Service Maintenance Mode', reason, id));
  });
}

function maintenanceCheck(node: string, checkId: string, name: string, notes: string, serviceId: string): CheckInput {
  return {
    Node: node,
    CheckID: checkId,
    Name: name,
    Status: 'critical',
    Notes: notes,
    Output: '',
    ServiceID: serviceId,
    Type: 'maintenance',
    Interval: '',
    Timeout: '',
    Definition: {},
  };
}
