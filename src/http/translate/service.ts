// Consul's service definition (catalog `Service`, agent service register, txn
// Service ops) → the catalog's ServiceInput, with Consul's defaults filled in.

import type { ServiceInput } from '../../catalog/commands';
import type { ServiceAddress } from '../../catalog/types';
import { meshNameProblem } from '../../connect/spiffe';
import { invalid } from '../../errors';
import type { Body } from '../body';
import { type ProxyContext, parseProxy } from './proxy';

export const SERVICE_KINDS = [
  '',
  'connect-proxy',
  'mesh-gateway',
  'terminating-gateway',
  'ingress-gateway',
  'api-gateway',
] as const;

function taggedServiceAddresses(body: Body): Record<string, ServiceAddress> {
  const out: Record<string, ServiceAddress> = {};
  for (const [key, item] of body.objMap('TaggedAddresses')) {
    out[key] = { Address: item.str('Address'), Port: item.int('Port', 0, { min: 0, max: 65535 }) };
  }
  return out;
}

/**
 * Parses a service. `nameField` is "Service" for catalog/txn bodies and "Name"
 * for the agent API; either way the ID defaults to the name (Consul). A
 * connect-proxy's Proxy is read field by field (proxy.ts); other kinds keep
 * theirs as given. `Connect.SidecarService` is the agent's shorthand: only
 * the agent registration reads it (sidecar.ts), everywhere else it is refused.
 */
export function parseService(
  body: Body,
  nameField: 'Service' | 'Name',
  ctx: ProxyContext,
  options: { sidecarAllowed?: boolean } = {},
): ServiceInput {
  const name = body.requiredName(nameField);
  const kind = body.oneOf('Kind', SERVICE_KINDS, '');
  // Go clients send the zero value {Passing: 0, Warning: 0} when they set no
  // weights (Consul's Go API does for catalog register): that means the default.
  const given = body.obj('Weights');
  const weights = given && (given.get('Passing') ?? 0) === 0 && (given.get('Warning') ?? 0) === 0 ? undefined : given;
  const service: ServiceInput = {
    Kind: kind,
    ID: body.name('ID') || name,
    Service: name,
    Tags: body.strArray('Tags'),
    Address: body.str('Address'),
    TaggedAddresses: taggedServiceAddresses(body),
    Meta: body.meta('Meta'),
    Port: body.int('Port', 0, { min: 0, max: 65535 }),
    Weights: weights
      ? { Passing: weights.int('Passing', 1, { min: 1 }), Warning: weights.int('Warning', 1, { min: 0 }) }
      : { Passing: 1, Warning: 1 },
    EnableTagOverride: body.bool('EnableTagOverride'),
  };
  const proxy = body.obj('Proxy');
  if (kind === 'connect-proxy') {
    if (service.Port === 0) throw invalid(body.field('Port'), 'must be set for a connect-proxy');
    service.Proxy = parseProxy(proxy, ctx);
  } else if (proxy) {
    service.Proxy = { ...proxy.raw };
    const dest = proxy.name('DestinationServiceName');
    if (dest) service.Proxy.DestinationServiceName = dest;
  }
  const connect = body.obj('Connect');
  if (connect) {
    const native = connect.bool('Native');
    if (native && kind === 'connect-proxy')
      throw invalid(connect.field('Native'), 'a proxy cannot also be Connect native, only typical services');
    // A Connect-native service, or one with a sidecar, gets a leaf for its name.
    const bad = (native || connect.has('SidecarService')) && meshNameProblem(name);
    if (bad) throw invalid(body.field(nameField), bad);
    if (connect.has('SidecarService') && !options.sidecarAllowed) {
      throw invalid(
        connect.field('SidecarService'),
        'sidecar services are registered through the agent (PUT /v1/agent/service/register)',
      );
    }
    // The shorthand is expanded by the agent, never stored (Consul keeps it out of the catalog too).
    const rest = Object.fromEntries(
      Object.entries(connect.raw).filter(
        ([k]) => !['sidecarservice', 'sidecar_service', 'native'].includes(k.toLowerCase()),
      ),
    );
    service.Connect = { ...rest, Native: native };
  }
  const ns = body.name('Namespace');
  if (ns) service.Namespace = ns;
  const partition = body.name('Partition');
  if (partition) service.Partition = partition;
  const locality = body.obj('Locality');
  if (locality) service.Locality = { Region: locality.str('Region'), Zone: locality.str('Zone') };
  return service;
}
