// Agent endpoints act for the hub's own node: a service registration becomes
// one catalog `register` command carrying the service and all its checks.
import { createHash } from 'node:crypto';
import type { Command, NodeInput } from '../../catalog/commands';
import type { HealthStatus, NodeService } from '../../catalog/types';
import { invalid } from '../../errors';
import { Body } from '../body';
import { isEmptyCheck, parseAgentServiceCheck, parseStatus, uniqueCheckIds } from './checks';
import { parseService } from './service';
import { parseSidecar, type SidecarContext, sidecarChecks, sidecarPort } from './sidecar';

export interface AgentIdentity {
  nodeName: string;
  nodeId: string;
  address: string;
  datacenter: string;
}

/** The hub's node as the agent endpoints register it. The node ID is derived from the name, so it is stable across restarts. */
export function agentIdentity(config: { nodeName: string; bind: string; datacenter: string }): AgentIdentity {
  const hex = createHash('sha256').update(`xdshub-node:${config.nodeName}`).digest('hex');
  const nodeId = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
  const address = config.bind === '0.0.0.0' || config.bind === '::' ? '127.0.0.1' : config.bind;
  return { nodeName: config.nodeName, nodeId, address, datacenter: config.datacenter };
}

export function agentNode(id: AgentIdentity): NodeInput {
  return {
    ID: id.nodeId,
    Node: id.nodeName,
    Address: id.address,
    Datacenter: id.datacenter,
    TaggedAddresses: {},
    Meta: {},
  };
}

/**
 * PUT /v1/agent/service/register. `nodeServices` is the hub node's services
 * (undefined when the node is not registered yet), which decides
 * SkipNodeUpdate — the node is written the first time only, so re-registering
 * a service does not touch the node's ModifyIndex (and wake every node
 * watcher) — and a sidecar's port. A sidecar whose port came from the range
 * carries `portFree`: apply refuses it if another registration took that port
 * meanwhile, and the route asks again.
 */
export function agentRegisterCommand(
  raw: unknown,
  id: AgentIdentity,
  nodeServices: readonly NodeService[] | undefined,
  ctx: SidecarContext,
): Command {
  const body = Body.of(raw);
  const service = parseService(body, 'Name', ctx, { sidecarAllowed: true });
  if (!service.Address) service.Address = '';
  const checkBodies = body.objArray('Checks');
  const given = body.obj('Check');
  const single = isEmptyCheck(given) ? undefined : given;
  if (single && checkBodies.length > 0) throw invalid('Check', 'give either Check or Checks, not both');
  const all = single ? [single] : checkBodies;
  const checks = all.map((c, index) => parseAgentServiceCheck(c, id.nodeName, service, { index, count: all.length }));
  uniqueCheckIds(checks, all);
  const draft = parseSidecar(body.obj('Connect'), service, ctx);
  const command: Command = {
    type: 'register',
    node: agentNode(id),
    service,
    checks,
    skipNodeUpdate: nodeServices !== undefined,
  };
  if (!draft) return command;
  const port = sidecarPort(draft, nodeServices ?? [], ctx);
  const sidecar = { ...draft.service, Port: port };
  return {
    ...command,
    sidecar: {
      service: sidecar,
      checks: sidecarChecks({ ...draft, service: sidecar }, port, id.nodeName, service.ID),
      portFree: draft.service.Port === 0,
    },
  };
}

/** PUT /v1/agent/check/update/:id body: {Status, Output}. */
export function checkUpdateFromBody(raw: unknown): { status: HealthStatus; output: string } {
  const body = Body.of(raw ?? {});
  if (!body.has('Status')) throw invalid('Status', 'is required');
  const status = parseStatus(body, 'critical');
  if (status === 'maintenance') throw invalid('Status', 'must be one of "passing", "warning", "critical"');
  return { status, output: body.str('Output') };
}
