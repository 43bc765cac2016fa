// A connect-proxy's `Proxy` block, as Consul takes it (docs/mesh.md
// "Registering proxies"): the service it fronts, where that service listens,
// and its upstreams. What the hub turns into Envoy configuration is checked
// field by field; options the hub does not implement (transparent mode, unix
// sockets, prepared-query or peered upstreams, expose paths, Envoy escape
// hatches) are refused with a 400 naming the field instead of being stored and
// ignored. The stored shape is Consul's, with its defaults filled in.
import { isIP } from 'node:net';
import { meshNameProblem } from '../../connect/spiffe';
import { invalid } from '../../errors';
import type { Body } from '../body';
import { PROTOCOLS } from './config-entries';

/** Keys of Proxy.Config the sidecar translation reads (docs/mesh.md). */
const PROXY_CONFIG_KEYS = [
  'protocol',
  'bind_address',
  'bind_port',
  'local_connect_timeout_ms',
  'local_request_timeout_ms',
];
/** Keys of Upstreams[].Config the sidecar translation reads. */
const UPSTREAM_CONFIG_KEYS = ['protocol', 'connect_timeout_ms'];

export interface ProxyContext {
  /** The hub's datacenter: an upstream may name it, or no datacenter. */
  datacenter: string;
}

function ipField(body: Body, name: string): string {
  const v = body.str(name);
  if (v !== '' && isIP(v) === 0) throw invalid(body.field(name), `must be an IP address, got "${v}"`);
  return v;
}

/** Proxy.Config / Upstreams[].Config: only the keys the hub implements, each checked. */
function opaqueConfig(body: Body, name: string, allowed: readonly string[]): Record<string, unknown> | undefined {
  const cfg = body.obj(name);
  if (!cfg) return undefined;
  for (const key of Object.keys(cfg.raw)) {
    if (!allowed.includes(key))
      throw invalid(cfg.field(key), `not supported by this hub (it reads ${allowed.join(', ')})`);
  }
  if (cfg.has('protocol')) cfg.oneOf('protocol', PROTOCOLS, 'tcp');
  if (cfg.has('bind_address')) ipField(cfg, 'bind_address');
  if (cfg.has('bind_port')) cfg.int('bind_port', 0, { min: 1, max: 65535 });
  for (const ms of ['local_connect_timeout_ms', 'local_request_timeout_ms', 'connect_timeout_ms'])
    if (cfg.has(ms)) cfg.int(ms, 0, { min: 0 });
  return { ...cfg.raw };
}

function meshGateway(body: Body): void {
  const mg = body.obj('MeshGateway');
  if (mg && mg.str('Mode') !== '') throw invalid(mg.field('Mode'), 'not supported by this hub (no mesh gateways)');
}

function upstream(u: Body, ctx: ProxyContext): Record<string, unknown> {
  const type = u.oneOf('DestinationType', ['', 'service', 'prepared_query'], '');
  if (type === 'prepared_query')
    throw invalid(u.field('DestinationType'), 'not supported by this hub (prepared queries)');
  u.unsupported('DestinationPeer', 'cluster peering');
  u.unsupported('LocalBindSocketPath', 'unix sockets');
  u.unsupported('CentrallyConfigured', 'transparent proxy');
  for (const f of ['DestinationNamespace', 'DestinationPartition']) {
    const v = u.name(f);
    if (v !== '' && v !== 'default') throw invalid(u.field(f), `only "default" is served by this hub, got "${v}"`);
  }
  const dc = u.str('Datacenter');
  if (dc !== '' && dc !== ctx.datacenter)
    throw invalid(u.field('Datacenter'), `unknown datacenter "${dc}" (this hub serves "${ctx.datacenter}")`);
  meshGateway(u);
  const out: Record<string, unknown> = {
    DestinationType: 'service',
    DestinationName: u.requiredName('DestinationName'),
    Datacenter: dc,
    LocalBindAddress: ipField(u, 'LocalBindAddress'),
    LocalBindPort: u.int('LocalBindPort', 0, { min: 0, max: 65535 }),
  };
  if (out.LocalBindPort === 0) throw invalid(u.field('LocalBindPort'), 'is required');
  const config = opaqueConfig(u, 'Config', UPSTREAM_CONFIG_KEYS);
  if (config) out.Config = config;
  out.MeshGateway = {};
  return out;
}

/**
 * The Proxy of a connect-proxy service. `defaults` fills fields the sidecar
 * shorthand derives from its parent (Consul's sidecar defaults).
 */
export function parseProxy(
  body: Body | undefined,
  ctx: ProxyContext,
  defaults: Partial<Record<'DestinationServiceName' | 'DestinationServiceID' | 'LocalServiceAddress', string>> & {
    LocalServicePort?: number;
  } = {},
): Record<string, unknown> {
  const field = (name: string) => (body ? body.field(name) : `Proxy.${name}`);
  const dest = body?.name('DestinationServiceName') || defaults.DestinationServiceName || '';
  if (dest === '') throw invalid(field('DestinationServiceName'), 'is required for a connect-proxy service');
  if (dest === '*') throw invalid(field('DestinationServiceName'), 'must not be a wildcard');
  const bad = meshNameProblem(dest);
  if (bad) throw invalid(field('DestinationServiceName'), bad);
  if (body) {
    body.unsupported('LocalServiceSocketPath', 'unix sockets');
    body.unsupported('TransparentProxy', 'transparent proxy');
    body.unsupported('Expose', 'expose paths');
    body.unsupported('AccessLogs', 'access logs');
    body.unsupported('EnvoyExtensions', 'Envoy extensions');
    body.oneOf('Mode', ['', 'direct', 'transparent'], '');
    if (body.str('Mode') === 'transparent')
      throw invalid(body.field('Mode'), 'not supported by this hub (transparent proxy)');
    meshGateway(body);
  }
  const proxy: Record<string, unknown> = { DestinationServiceName: dest };
  const destId = body?.name('DestinationServiceID') || defaults.DestinationServiceID || '';
  if (destId) proxy.DestinationServiceID = destId;
  const localAddress = (body ? ipField(body, 'LocalServiceAddress') : '') || defaults.LocalServiceAddress || '';
  if (localAddress) proxy.LocalServiceAddress = localAddress;
  const localPort = body?.int('LocalServicePort', 0, { min: 0, max: 65535 }) || defaults.LocalServicePort || 0;
  if (localPort) proxy.LocalServicePort = localPort;
  proxy.Mode = body?.str('Mode') ?? '';
  const config = body ? opaqueConfig(body, 'Config', PROXY_CONFIG_KEYS) : undefined;
  if (config) proxy.Config = config;
  const upstreams = (body?.objArray('Upstreams') ?? []).map((u) => upstream(u, ctx));
  const names = new Set<string>();
  const binds = new Set<string>();
  upstreams.forEach((u, i) => {
    const at = `${field('Upstreams')}[${i}]`;
    if (names.has(u.DestinationName as string))
      throw invalid(`${at}.DestinationName`, `upstreams cannot contain duplicates of "${u.DestinationName}"`);
    names.add(u.DestinationName as string);
    const bind = `${(u.LocalBindAddress as string) || '127.0.0.1'}:${u.LocalBindPort}`;
    if (binds.has(bind))
      throw invalid(
        `${at}.LocalBindPort`,
        `upstreams cannot contain duplicates by local bind address and port; "${bind}" is specified twice`,
      );
    binds.add(bind);
  });
  if (upstreams.length > 0) proxy.Upstreams = upstreams;
  proxy.MeshGateway = {};
  proxy.Expose = {};
  return proxy;
}
