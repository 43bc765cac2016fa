// proxy-defaults, Consul's ProxyConfigEntry (docs/catalog.md "proxy-defaults"):
// the singleton `global` whose Config every sidecar starts from. The hub applies
// what its sidecars can act on — Config.protocol (the default protocol of every
// service without a service-defaults Protocol) and the two local-app timeouts —
// and refuses the rest with a 400 naming the field: Envoy escape hatches and
// other Config keys, transparent mode, mesh gateway modes that need a mesh
// gateway, expose paths, access logs, Envoy extensions, failover and locality
// policies. A zero value (what Go clients send for fields they leave unset) passes.
import { invalid } from '../../errors';
import type { Body } from '../body';

/** The only name Consul allows (its ProxyConfigGlobal). */
export const PROXY_DEFAULTS_NAME = 'global';

/** Config keys the sidecar translation reads from proxy-defaults (docs/mesh.md). */
export const PROXY_DEFAULTS_CONFIG_KEYS = ['protocol', 'local_connect_timeout_ms', 'local_request_timeout_ms'] as const;

const PROTOCOLS = ['tcp', 'http', 'http2', 'grpc'] as const;

/** The entry's name: `global`, also when left out (Consul's Validate message otherwise). */
export function proxyDefaultsName(name: string): string {
  if (name !== '' && name !== PROXY_DEFAULTS_NAME)
    throw invalid('Name', `invalid name ("${name}"), only "${PROXY_DEFAULTS_NAME}" is supported`);
  return PROXY_DEFAULTS_NAME;
}

function config(e: Body): void {
  const cfg = e.obj('Config');
  if (!cfg) return;
  const allowed: readonly string[] = PROXY_DEFAULTS_CONFIG_KEYS;
  for (const key of Object.keys(cfg.raw)) {
    if (allowed.includes(key)) continue;
    const what = key.startsWith('envoy_') ? 'Envoy escape hatches are not applied' : 'the hub does not apply it';
    throw invalid(cfg.field(key), `not supported by this hub (${what}; it reads ${allowed.join(', ')})`);
  }
  if (cfg.has('protocol')) cfg.oneOf('protocol', PROTOCOLS, 'tcp');
  for (const ms of ['local_connect_timeout_ms', 'local_request_timeout_ms'])
    if (cfg.has(ms)) cfg.int(ms, 0, { min: 0 });
}

/** Validates a proxy-defaults body; returns its known top-level keys (Consul's spelling). */
export function proxyDefaults(e: Body): string[] {
  config(e);
  if (e.oneOf('Mode', ['', 'direct', 'transparent'], '') === 'transparent')
    throw invalid(e.field('Mode'), 'not supported by this hub (transparent proxy)');
  e.unsupported('TransparentProxy', 'transparent proxy');
  if (e.oneOf('MutualTLSMode', ['', 'strict', 'permissive'], '') === 'permissive')
    throw invalid(e.field('MutualTLSMode'), 'not supported by this hub (permissive mutual TLS)');
  const mg = e.obj('MeshGateway');
  if (mg) {
    // "none" is what the hub does anyway: upstreams are dialled directly.
    const mode = mg.oneOf('Mode', ['', 'none', 'local', 'remote'], '');
    if (mode === 'local' || mode === 'remote')
      throw invalid(mg.field('Mode'), `"${mode}" is not supported by this hub (no mesh gateways)`);
  }
  e.unsupported('Expose', 'expose paths');
  e.unsupported('AccessLogs', 'access logs');
  e.unsupported('EnvoyExtensions', 'Envoy extensions');
  e.unsupported('FailoverPolicy', 'failover policies');
  e.unsupported('PrioritizeByLocality', 'locality-aware routing');
  return [
    'Config',
    'Mode',
    'TransparentProxy',
    'MutualTLSMode',
    'MeshGateway',
    'Expose',
    'AccessLogs',
    'EnvoyExtensions',
    'FailoverPolicy',
    'PrioritizeByLocality',
  ];
}
