// GET /v1/agent/service/:id as Consul's agent serves it: one service of the
// hub's node in the AgentService shape, with the `Proxy` block Consul gives
// proxies and gateways (what `consul connect envoy` reads to build a
// bootstrap), a `ContentHash` over the answer, and blocking by that hash
// (`?hash=H&wait=D` answers when the hash moves off H, or when the wait ends).
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { NodeService } from '../../catalog/types';
import { joined } from '../../catalog/watch-keys';
import { parseDurationMs } from '../../config';
import type { CentralConfig } from '../../connect/central-config';
import { HubError } from '../../errors';
import { requireAccess } from '../acl';
import { DEFAULT_WAIT_MS, MAX_WAIT_MS, withinWait, withJitter } from '../blocking';
import type { HttpContext } from '../context';
import { sendJson } from '../reply';
import { policy } from '../route-policy';
import { agentService, centralConfigOf } from '../shapes';

/** Kinds whose AgentService carries a Proxy block (Consul: connect-proxy and every gateway). */
const PROXY_KINDS = new Set(['connect-proxy', 'mesh-gateway', 'terminating-gateway', 'ingress-gateway', 'api-gateway']);

/** One service's answer: Consul's AgentService, the Proxy block as Consul's ToAPI fills it, its hash. */
export function agentServiceDetail(
  s: NodeService,
  datacenter: string,
  central?: CentralConfig,
): Record<string, unknown> {
  const out = agentService(s, datacenter, central);
  if (PROXY_KINDS.has(s.Kind))
    out.Proxy = { MeshGateway: {}, Expose: {}, ...((out.Proxy as object | undefined) ?? {}) };
  else delete out.Proxy;
  // Consul hashes the struct (hashstructure); any stable digest of the answer serves the same purpose.
  out.ContentHash = createHash('sha256').update(JSON.stringify(out)).digest('hex').slice(0, 16);
  return out;
}

function one(value: unknown): string {
  return Array.isArray(value) ? String(value.at(-1) ?? '') : value === undefined ? '' : String(value);
}

export function agentServiceRoute(app: FastifyInstance, ctx: HttpContext): void {
  const node = ctx.identity.nodeName;
  app.get<{ Params: { id: string }; Querystring: Record<string, unknown> }>(
    '/v1/agent/service/:id',
    policy.checked,
    async (req, reply) => {
      const id = req.params.id;
      const hash = one(req.query.hash);
      const waitText = one(req.query.wait);
      const waitMs = waitText === '' ? DEFAULT_WAIT_MS : Math.min(parseDurationMs(waitText, 'wait'), MAX_WAIT_MS);
      const read = () => {
        const found = ctx.catalog.node(node);
        const s = found.value?.Services.find((x) => x.ID === id);
        if (!s) throw new HubError('NOT_FOUND', `unknown service ID: ${id}`);
        requireAccess(ctx.acl, req, 'service', 'read', s.Service);
        // A proxy's answer has central config merged in: a proxy-defaults or its destination's
        // service-defaults change moves it too.
        const destination = s.Proxy?.DestinationServiceName;
        const central = PROXY_KINDS.has(s.Kind)
          ? [
              ctx.catalog.configEntry('proxy-defaults', 'global'),
              ...(typeof destination === 'string' && destination !== ''
                ? [ctx.catalog.configEntry('service-defaults', destination)]
                : []),
            ]
          : [];
        return {
          answer: agentServiceDetail(s, ctx.config.datacenter, centralConfigOf(ctx.catalog)),
          watch: joined(null, [found, ...central]).watch,
        };
      };
      let current = read();
      if (hash !== '' && current.answer.ContentHash === hash) {
        current = await withinWait(ctx, req, reply, withJitter(waitMs), async (signal) => {
          let r = current;
          while (r.answer.ContentHash === hash && !signal.aborted) {
            await ctx.catalog.waitForChange(r.watch, signal).catch((err: unknown) => {
              if (!signal.aborted) throw err;
            });
            r = read();
          }
          return r;
        });
      }
      reply.header('X-Consul-ContentHash', String(current.answer.ContentHash));
      return sendJson(reply, current.answer);
    },
  );
}
