// Central config merged into a proxy's registration, as Consul's agent does with
// `enable_central_service_config` (on by default in 1.16; docs/mesh.md "Central
// config"). What a proxy's `Proxy.Config` starts from, each later source
// overriding the one before, and the proxy's own keys winning over all:
//
//   proxy-defaults `global` Config  <  service-defaults (of the destination)
//   Protocol, LocalConnectTimeoutMs, LocalRequestTimeoutMs  <  Proxy.Config as registered
//
// and each upstream's `Config.protocol`: the proxy-defaults protocol, else the
// upstream service's service-defaults Protocol, the upstream's own Config winning.
// The xDS translation reads proxies through it and so do the agent's reads.
import type { ConfigEntry } from '../catalog/types';

type Obj = Record<string, unknown>;

/** The two kinds the merge reads: proxy-defaults `global`, and a service's service-defaults. */
export interface CentralConfig {
  proxyDefaults: ConfigEntry | undefined;
  serviceDefaults(service: string): ConfigEntry | undefined;
}

const obj = (v: unknown): Obj | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined;
const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const count = (v: unknown): number | undefined => (typeof v === 'number' && v > 0 ? v : undefined);

/** The protocol proxy-defaults gives every service without a service-defaults Protocol (undefined: none). */
export function globalProtocol(proxyDefaults: ConfigEntry | undefined): string | undefined {
  return text(obj(proxyDefaults?.['Config'])?.['protocol'])?.toLowerCase();
}

/** Where a service's protocol came from (serviceProtocol). */
export type ProtocolSource = 'service-defaults' | 'proxy-defaults' | 'default';

/**
 * A service's protocol as Consul resolves it: its service-defaults Protocol,
 * else proxy-defaults `global` Config.protocol, else tcp; lower-cased, with
 * where it came from (for refusals that name it).
 */
export function serviceProtocol(
  serviceDefaults: ConfigEntry | undefined,
  proxyDefaults: ConfigEntry | undefined,
): { protocol: string; source: ProtocolSource } {
  const own = text(serviceDefaults?.['Protocol']);
  if (own) return { protocol: own.toLowerCase(), source: 'service-defaults' };
  const global = globalProtocol(proxyDefaults);
  if (global) return { protocol: global, source: 'proxy-defaults' };
  return { protocol: 'tcp', source: 'default' };
}

/** Consul's resolved proxy config for `service`'s proxies: proxy-defaults Config with its service-defaults over it. */
function resolvedConfig(service: string, central: CentralConfig): Obj {
  const out: Obj = { ...(obj(central.proxyDefaults?.['Config']) ?? {}) };
  const sd = central.serviceDefaults(service);
  const protocol = text(sd?.['Protocol']);
  if (protocol) out['protocol'] = protocol;
  const connect = count(sd?.['LocalConnectTimeoutMs']);
  if (connect) out['local_connect_timeout_ms'] = connect;
  const request = count(sd?.['LocalRequestTimeoutMs']);
  if (request) out['local_request_timeout_ms'] = request;
  return out;
}

/** The protocol merged into an upstream's Config: undefined when neither entry gives one. */
function upstreamProtocol(destination: string, central: CentralConfig): string | undefined {
  const { protocol, source } = serviceProtocol(central.serviceDefaults(destination), central.proxyDefaults);
  return source === 'default' ? undefined : protocol;
}

/** `base` with `own`'s keys over it; `own` itself when `base` adds nothing. */
function under(base: Obj, own: Obj | undefined): Obj | undefined {
  const added = Object.keys(base).filter((k) => own === undefined || !(k in own));
  if (added.length === 0) return own;
  return { ...base, ...(own ?? {}) };
}

/**
 * A proxy's `Proxy` block with central config merged in; the same object when
 * nothing was added (so callers comparing by identity see no change).
 */
export function mergeCentralConfig(proxy: Obj | undefined, central: CentralConfig): Obj | undefined {
  const destination = text(proxy?.['DestinationServiceName']);
  if (!proxy || destination === undefined) return proxy;
  const config = under(resolvedConfig(destination, central), obj(proxy['Config']));
  let changed = config !== proxy['Config'];
  const upstreams = Array.isArray(proxy['Upstreams'])
    ? (proxy['Upstreams'] as unknown[]).map((raw) => {
        const u = obj(raw);
        const name = text(u?.['DestinationName']);
        const protocol = name === undefined ? undefined : upstreamProtocol(name, central);
        if (!u || protocol === undefined) return raw;
        const merged = under({ protocol }, obj(u['Config']));
        if (merged === u['Config']) return raw;
        changed = true;
        return { ...u, Config: merged };
      })
    : proxy['Upstreams'];
  if (!changed) return proxy;
  return { ...proxy, ...(config ? { Config: config } : {}), ...(upstreams ? { Upstreams: upstreams } : {}) };
}
