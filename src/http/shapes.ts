// Consul's response shapes that differ from the catalog's own types.
import type { Catalog } from '../catalog/catalog';
import type { NodeService } from '../catalog/types';
import { type CentralConfig, mergeCentralConfig } from '../connect/central-config';

export { serviceNode } from '../catalog/service-node';

import { parseGoBool } from '../config';
import { invalid } from '../errors';

/**
 * /v1/agent/services — Consul's AgentService (no indexes, the datacenter added);
 * with `central`, a proxy's Proxy block has central config merged in, as
 * Consul's agent registers it (docs/mesh.md "Central config").
 */
export function agentService(s: NodeService, datacenter: string, central?: CentralConfig): Record<string, unknown> {
  const { CreateIndex: _c, ModifyIndex: _m, ...rest } = s;
  const proxy = central && s.Proxy ? mergeCentralConfig(s.Proxy as Record<string, unknown>, central) : s.Proxy;
  return { ...rest, ...(proxy ? { Proxy: proxy } : {}), Datacenter: datacenter };
}

/**
 * A service of the hub's own node (agent-registered) as Consul's catalog holds
 * it: its agent syncs proxies with central config merged in, so catalog and
 * health reads show the merged Proxy block too. Services of other nodes (catalog
 * registrations) are as registered, as in Consul.
 */
export function agentSynced<S extends NodeService>(s: S, node: string, agentNode: string, central: CentralConfig): S {
  if (node !== agentNode || !s.Proxy) return s;
  const proxy = mergeCentralConfig(s.Proxy as Record<string, unknown>, central);
  return proxy === s.Proxy ? s : { ...s, Proxy: proxy as S['Proxy'] };
}

/**
 * The central config the agent's reads merge into its proxies, read from the
 * catalog when first asked: only proxies on the hub's own node ask, so a
 * fan-out hub (whose catalog reads are upstream's, src/assemble/sources.ts) never does.
 */
export function centralConfigOf(catalog: Pick<Catalog, 'configEntry'>): CentralConfig {
  return {
    get proxyDefaults() {
      return catalog.configEntry('proxy-defaults', 'global').value;
    },
    serviceDefaults: (service) => catalog.configEntry('service-defaults', service).value,
  };
}

/** Query values that may repeat (?tag=a&tag=b) as a list. */
export function many(value: unknown): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map(String);
}

/**
 * Consul's boolean query flags: present with no value (?passing) means true;
 * otherwise the value must parse as a bool.
 */
export function flag(query: Record<string, unknown>, name: string): boolean {
  if (!(name in query)) return false;
  const v = many(query[name]).at(-1) ?? '';
  const b = v === '' ? true : parseGoBool(v);
  if (b === undefined) throw invalid(name, `Invalid value for ?${name}: "${v}"`);
  return b;
}
