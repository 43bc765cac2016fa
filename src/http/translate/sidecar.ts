// Consul's sidecar shorthand (`Connect.SidecarService` in an agent service
// registration, docs/mesh.md): a second service `<id>-sidecar-proxy` of kind
// connect-proxy, named `<name>-sidecar-proxy`, fronting the parent. Like
// Consul's agent it inherits the parent's tags, meta and address when it has
// none, points its Proxy at the parent (127.0.0.1:<parent port>), takes the
// lowest free port of the sidecar range when it names none, and gets two
// checks when it names none: a TCP check on its own port and an alias of the
// parent's health.

import type { CheckInput, ServiceInput } from '../../catalog/commands';
import type { NodeService } from '../../catalog/types';
import { invalid } from '../../errors';
import { Body } from '../body';
import { isEmptyCheck, parseAgentServiceCheck, uniqueCheckIds } from './checks';
import { type ProxyContext, parseProxy } from './proxy';

export const SIDECAR_SUFFIX = '-sidecar-proxy';

export interface SidecarContext extends ProxyContext {
  /** The sidecar port range, inclusive (Consul's sidecar_min_port / sidecar_max_port). */
  minPort: number;
  maxPort: number;
}

/** A sidecar waiting for its port (0 = take one from the range) and its checks. */
export interface SidecarDraft {
  service: ServiceInput;
  /** The checks the registration named; empty means Consul's two default checks. */
  checkBodies: Body[];
}

export function sidecarId(parentId: string): string {
  return `${parentId}${SIDECAR_SUFFIX}`;
}

/** Reads `Connect.SidecarService` of an agent registration; undefined when there is none. */
export function parseSidecar(
  connect: Body | undefined,
  parent: ServiceInput,
  ctx: ProxyContext,
): SidecarDraft | undefined {
  const body = connect?.obj('SidecarService');
  if (!body) return undefined;
  if (parent.Kind !== '') throw invalid(body.path, `a ${parent.Kind} cannot have a sidecar service`);
  if (body.str('ID') !== '')
    throw invalid(body.field('ID'), 'a SidecarService cannot specify an ID as this is managed by the agent');
  const kind = body.oneOf('Kind', ['', 'connect-proxy'], '');
  if (body.obj('Connect')?.has('SidecarService'))
    throw invalid(body.field('Connect.SidecarService'), 'a SidecarService cannot have a nested SidecarService');
  if (body.obj('Connect')?.bool('Native'))
    throw invalid(body.field('Connect.Native'), 'a proxy cannot also be Connect native');
  const tags = body.strArray('Tags');
  const meta = body.meta('Meta');
  const weights = body.obj('Weights');
  const service: ServiceInput = {
    Kind: kind || 'connect-proxy',
    ID: sidecarId(parent.ID),
    Service: body.name('Name') || `${parent.Service}${SIDECAR_SUFFIX}`,
    Tags: tags.length > 0 ? tags : [...parent.Tags],
    Address: body.str('Address') || parent.Address,
    TaggedAddresses: {},
    Meta: Object.keys(meta).length > 0 ? meta : { ...parent.Meta },
    Port: body.int('Port', 0, { min: 0, max: 65535 }),
    Weights: weights
      ? { Passing: weights.int('Passing', 1, { min: 1 }), Warning: weights.int('Warning', 1, { min: 0 }) }
      : { Passing: 1, Warning: 1 },
    EnableTagOverride: body.bool('EnableTagOverride'),
    Proxy: parseProxy(body.obj('Proxy'), ctx, {
      DestinationServiceName: parent.Service,
      DestinationServiceID: parent.ID,
      LocalServiceAddress: '127.0.0.1',
      LocalServicePort: parent.Port,
    }),
  };
  const given = body.obj('Check');
  const single = isEmptyCheck(given) ? undefined : given;
  const many = body.objArray('Checks');
  if (single && many.length > 0) throw invalid(body.field('Check'), 'give either Check or Checks, not both');
  return { service, checkBodies: single ? [single] : many };
}

/**
 * The port for a sidecar: its own if it names one; else the port it already
 * holds in the range (a re-registration keeps it); else the lowest port of the
 * range no other service of the node uses. Throws when the range is full.
 */
export function sidecarPort(draft: SidecarDraft, nodeServices: readonly NodeService[], ctx: SidecarContext): number {
  if (draft.service.Port > 0) return draft.service.Port;
  const inRange = (p: number) => p >= ctx.minPort && p <= ctx.maxPort;
  const used = new Set<number>();
  for (const s of nodeServices) {
    if (!inRange(s.Port)) continue;
    if (s.ID === draft.service.ID) return s.Port;
    used.add(s.Port);
  }
  for (let p = ctx.minPort; p <= ctx.maxPort; p++) if (!used.has(p)) return p;
  throw invalid(
    'Connect.SidecarService.Port',
    `no port provided for sidecar_service and none left in the configured range [${ctx.minPort}, ${ctx.maxPort}]`,
  );
}

/** The sidecar's checks: as registered, or Consul's defaults (TCP on its port, alias of the parent). */
export function sidecarChecks(draft: SidecarDraft, port: number, node: string, parentId: string): CheckInput[] {
  const service = draft.service;
  const bodies =
    draft.checkBodies.length > 0
      ? draft.checkBodies
      : [
          Body.of(
            {
              Name: 'Connect Sidecar Listening',
              TCP: `${tcpHost(service.Address || String(service.Proxy?.['LocalServiceAddress'] ?? '127.0.0.1'))}:${port}`,
              Interval: '10s',
            },
            'Connect.SidecarService.Checks[0]',
          ),
          Body.of(
            { Name: `Connect Sidecar Aliasing ${parentId}`, AliasService: parentId },
            'Connect.SidecarService.Checks[1]',
          ),
        ];
  const checks = bodies.map((c, index) => parseAgentServiceCheck(c, node, service, { index, count: bodies.length }));
  uniqueCheckIds(checks, bodies);
  return checks;
}

function tcpHost(address: string): string {
  return address.includes(':') ? `[${address}]` : address;
}
