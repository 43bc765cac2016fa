// /v1/agent/*: the hub acts as the agent of its own node (config.nodeName).
// Service registration, TTL check updates and listings all go through the
// catalog, so every replica sees the same services and check states.
import { availableParallelism } from 'node:os';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { canReadCheck } from '../../acl/catalog-rules';
import type { Command } from '../../catalog/commands';
import type { HealthStatus } from '../../catalog/types';
import { HubError } from '../../errors';
import { HEALTH_CHECK_FIELDS, NODE_SERVICE_FIELDS } from '../../filter/index';
import { filterRead, requireAccess } from '../acl';
import { blockingRead } from '../blocking';
import type { HttpContext } from '../context';
import { filterParam } from '../query';
import { sendJson } from '../reply';
import { policy } from '../route-policy';
import { agentService, centralConfigOf, flag } from '../shapes';
import { type AgentIdentity, agentRegisterCommand, checkUpdateFromBody } from '../translate/agent';
import { sidecarId } from '../translate/sidecar';
import { authorizeWrite, refusal, submit, submitOrThrow } from '../write';
import { agentCheckRoutes, checkTargetsVetter, unknownCheck } from './agent-checks';
import { agentHealthRoutes } from './agent-health';
import { agentServiceRoute } from './agent-service';

/** A sidecar's range port may be taken by a concurrent registration: this many tries, then the CONFLICT is the answer. */
const SIDECAR_PORT_ATTEMPTS = 5;

type IdParams = { Params: { id: string } };
type Query = Record<string, unknown>;
export const VERSION = '1.16.0';

/** The hub as a Serf member (/v1/agent/members, /v1/agent/self): always alive (Status 1). */
function member(id: AgentIdentity) {
  return {
    Name: id.nodeName,
    Addr: id.address,
    Port: 8301,
    Tags: { role: 'consul', dc: id.datacenter, id: id.nodeId, build: `${VERSION}:xdshub`, vsn: '2', port: '8300' },
    Status: 1,
    ProtocolMin: 1,
    ProtocolMax: 5,
    ProtocolCur: 2,
    DelegateMin: 2,
    DelegateMax: 5,
    DelegateCur: 4,
  };
}

/**
 * /v1/agent/self's `Stats`, the sections `consul info` prints, with what the
 * hub can fill: its node's services and checks, its build, its leadership (it
 * is its own leader, as /v1/status/leader says) and its runtime. Consul's raft
 * and serf sections are left out: the hub has neither. Values are strings, as Consul's.
 */
function agentStats(ctx: HttpContext): Record<string, Record<string, string>> {
  const node = ctx.identity.nodeName;
  const checks = ctx.catalog.nodeChecks(node).value;
  const ttls = checks.filter((c) => c.Type === 'ttl').length;
  const services = ctx.catalog.node(node).value?.Services.length ?? 0;
  return {
    agent: {
      check_monitors: String(checks.length - ttls),
      check_ttls: String(ttls),
      checks: String(checks.length),
      services: String(services),
    },
    build: { prerelease: '', revision: 'xdshub', version: VERSION, version_metadata: '' },
    consul: {
      acl: ctx.acl.resolver.settings.enabled ? 'enabled' : 'disabled',
      bootstrap: 'false',
      known_datacenters: '1',
      leader: String(ctx.hasLeader?.() ?? true),
      leader_addr: `${ctx.identity.address}:${ctx.config.grpcPort}`,
      server: 'true',
    },
    runtime: {
      arch: process.arch === 'x64' ? 'amd64' : process.arch,
      cpu_count: String(availableParallelism()),
      os: process.platform,
      version: `node ${process.version}`,
    },
  };
}

async function updateCheck(
  ctx: HttpContext,
  req: FastifyRequest,
  reply: FastifyReply,
  id: string,
  status: HealthStatus,
  output: string,
) {
  const command: Command = { type: 'check-update', node: ctx.identity.nodeName, checkId: id, status, output };
  authorizeWrite(ctx, req, command);
  const result = await submit(ctx, reply, command);
  if (!result.ok) throw result.error?.code === 'NOT_FOUND' ? unknownCheck(id) : refusal(result);
  return reply.code(200).send('');
}

/** PUT /v1/agent/service/register: the service, its checks vetted, and its sidecar (Connect.SidecarService). */
function registerRoute(app: FastifyInstance, ctx: HttpContext): void {
  const node = ctx.identity.nodeName;
  const vet = checkTargetsVetter(ctx);
  const sidecarCtx = {
    datacenter: ctx.config.datacenter,
    minPort: ctx.config.sidecarMinPort,
    maxPort: ctx.config.sidecarMaxPort,
  };
  app.put('/v1/agent/service/register', policy.write, async (req, reply) => {
    // A sidecar port from the range can be taken between reading the node and
    // applying the entry (another registration, another hub): apply refuses it
    // and the registration is read again against the newer state.
    for (let attempt = 1; ; attempt++) {
      const command = agentRegisterCommand(req.body, ctx.identity, ctx.catalog.node(node).value?.Services, sidecarCtx);
      if (command.type !== 'register') throw new HubError('INTERNAL', 'agent registration is not a register command');
      authorizeWrite(ctx, req, command); // before the vetting probes: a refused caller makes the hub probe nothing
      const all = [...command.checks, ...(command.sidecar?.checks ?? [])];
      await vet(all, (i) =>
        i >= command.checks.length
          ? `Connect.SidecarService.Checks[${i - command.checks.length}]`
          : command.checks.length > 1
            ? `Checks[${i}]`
            : 'Check',
      );
      const result = await submit(ctx, reply, command);
      if (result.ok) return reply.code(200).send('');
      if (!(command.sidecar?.portFree && result.error?.code === 'CONFLICT' && attempt < SIDECAR_PORT_ATTEMPTS))
        throw refusal(result);
    }
  });
}

/** PUT /v1/agent/service/deregister/:id: the service and the sidecar registered with it. */
function deregisterRoute(app: FastifyInstance, ctx: HttpContext): void {
  const node = ctx.identity.nodeName;
  app.put<IdParams>('/v1/agent/service/deregister/:id', policy.checked, async (req, reply) => {
    const id = req.params.id;
    const services = ctx.catalog.node(node).value?.Services ?? [];
    if (!services.some((s) => s.ID === id)) {
      throw new HubError(
        'NOT_FOUND',
        `Unknown service ID "${id}". Ensure that the service ID is passed, not the service name.`,
      );
    }
    // A sidecar registered with its parent goes with it (Consul's agent does the same).
    const sidecar = services.find(
      (s) => s.ID === sidecarId(id) && s.Kind === 'connect-proxy' && s.Proxy?.DestinationServiceID === id,
    );
    const command: Command = sidecar
      ? {
          type: 'txn',
          ops: [
            { op: 'service-delete', node, serviceId: sidecar.ID },
            { op: 'service-delete', node, serviceId: id },
          ],
        }
      : { type: 'deregister', node, serviceId: id };
    authorizeWrite(ctx, req, command);
    await submitOrThrow(ctx, reply, command);
    return reply.code(200).send('');
  });
}

/** PUT /v1/agent/check/pass|warn|fail|update/:id: a check's status from the agent API. */
function checkUpdateRoutes(app: FastifyInstance, ctx: HttpContext): void {
  const verbs: Array<[string, HealthStatus]> = [
    ['pass', 'passing'],
    ['warn', 'warning'],
    ['fail', 'critical'],
  ];
  for (const [verb, status] of verbs) {
    app.put<IdParams & { Querystring: { note?: string } }>(
      `/v1/agent/check/${verb}/:id`,
      policy.checked,
      async (req, reply) => {
        const note = req.query.note;
        return updateCheck(ctx, req, reply, req.params.id, status, typeof note === 'string' ? note : '');
      },
    );
  }

  app.put<IdParams>('/v1/agent/check/update/:id', policy.checked, async (req, reply) => {
    const { status, output } = checkUpdateFromBody(req.body);
    return updateCheck(ctx, req, reply, req.params.id, status, output);
  });
}

export function agentRoutes(app: FastifyInstance, ctx: HttpContext): void {
  registerRoute(app, ctx);
  deregisterRoute(app, ctx);
  checkUpdateRoutes(app, ctx);
  agentListRoutes(app, ctx);
  agentHealthRoutes(app, ctx);
  agentCheckRoutes(app, ctx);
  agentServiceRoute(app, ctx);
  agentSelfRoutes(app, ctx);
}

/** /v1/agent/members and /v1/agent/self: the hub as its own (only) member and agent. */
function agentSelfRoutes(app: FastifyInstance, ctx: HttpContext): void {
  // The hub is the only member of its (LAN or WAN) pool.
  app.get('/v1/agent/members', policy.checked, async (req, reply) => {
    const wan = flag(req.query as Query, 'wan');
    const self = member(ctx.identity);
    const members = filterRead(ctx.acl, req, reply, [self], (authz, m) => authz.allowed('node', 'read', m.Name));
    return sendJson(
      reply,
      members.map((m) => (wan ? { ...m, Name: `${m.Name}.${ctx.identity.datacenter}` } : m)),
    );
  });

  app.get('/v1/agent/self', policy.checked, async (req, reply) => {
    const { nodeName, nodeId, datacenter } = ctx.identity;
    requireAccess(ctx.acl, req, 'agent', 'read', nodeName);
    return sendJson(reply, {
      Config: {
        Datacenter: datacenter,
        PrimaryDatacenter: datacenter,
        NodeName: nodeName,
        NodeID: nodeId,
        Server: true,
        Revision: 'xdshub',
        Version: VERSION,
        BuildDate: '',
      },
      DebugConfig: {},
      Coord: null,
      Member: member(ctx.identity),
      Stats: agentStats(ctx),
      Meta: {},
      xDS: {
        SupportedProxies: { envoy: ['1.28.0', '1.27.0', '1.26.0'] },
        Port: ctx.config.grpcPort,
        Ports: { Plaintext: ctx.config.grpcPort, TLS: -1 },
      },
    });
  });
}

/** /v1/agent/services and /v1/agent/checks: the hub node's, filtered and blocking by index. */
function agentListRoutes(app: FastifyInstance, ctx: HttpContext): void {
  const node = ctx.identity.nodeName;
  app.get('/v1/agent/services', policy.checked, async (req, reply) => {
    const filter = filterParam(req.query as Query, NODE_SERVICE_FIELDS);
    const services = await blockingRead(
      ctx,
      req,
      reply,
      () => {
        const found = ctx.catalog.node(node);
        return { ...found, value: (found.value?.Services ?? []).filter((s) => !filter || filter(s)) };
      },
      { untilChanged: filter !== undefined },
    );
    const readable = filterRead(ctx.acl, req, reply, services, (authz, s) =>
      authz.allowed('service', 'read', s.Service),
    );
    const central = centralConfigOf(ctx.catalog);
    return sendJson(
      reply,
      Object.fromEntries(readable.map((s) => [s.ID, agentService(s, ctx.config.datacenter, central)])),
    );
  });

  app.get('/v1/agent/checks', policy.checked, async (req, reply) => {
    const filter = filterParam(req.query as Query, HEALTH_CHECK_FIELDS);
    const checks = await blockingRead(
      ctx,
      req,
      reply,
      () => {
        const found = ctx.catalog.nodeChecks(node);
        return filter ? { ...found, value: found.value.filter((c) => filter(c)) } : found;
      },
      { untilChanged: filter !== undefined },
    );
    const readable = filterRead(ctx.acl, req, reply, checks, canReadCheck);
    return sendJson(reply, Object.fromEntries(readable.map((c) => [c.CheckID, c])));
  });
}
