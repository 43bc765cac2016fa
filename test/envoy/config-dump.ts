// Envoy's /config_dump against the hub's GET /v1/xds/config/:node: the
// resources Envoy holds and uses must be the ones the hub says the node gets.
// Envoy prints canonical proto3 JSON with the proto's snake_case names, the
// hub the lowerCamelCase JSON names; keys are compared in one spelling.
import assert from 'node:assert/strict';
import type { Envoy } from '../helpers/envoy';
import { hubCall } from './harness';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type ByType = Record<'clusters' | 'endpoints' | 'listeners' | 'routes', Record<string, Json>>;

const camel = (k: string) =>
  k.startsWith('@') || k.includes('.') ? k : k.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());

/** Keys in lowerCamelCase (map keys such as "envoy.extensions…" contain dots and are kept). */
export function camelKeys(v: Json): Json {
  if (Array.isArray(v)) return v.map(camelKeys);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [camel(k), camelKeys(x)]));
}

/** The dynamic resources Envoy holds, by type and name. */
export async function envoyHolds(envoy: Envoy): Promise<ByType> {
  const dump = (await envoy.configDump('?include_eds')) as { configs: Record<string, any>[] };
  const out: ByType = { clusters: {}, endpoints: {}, listeners: {}, routes: {} };
  for (const c of dump.configs) {
    const type = String(c['@type']);
    if (type.endsWith('ClustersConfigDump'))
      for (const d of c['dynamic_active_clusters'] ?? []) out.clusters[d.cluster.name] = camelKeys(d.cluster);
    if (type.endsWith('ListenersConfigDump'))
      for (const d of c['dynamic_listeners'] ?? [])
        if (d.active_state) out.listeners[d.name] = camelKeys(d.active_state.listener);
    if (type.endsWith('RoutesConfigDump'))
      for (const d of c['dynamic_route_configs'] ?? []) out.routes[d.route_config.name] = camelKeys(d.route_config);
    if (type.endsWith('EndpointsConfigDump'))
      for (const d of c['dynamic_endpoint_configs'] ?? [])
        out.endpoints[d.endpoint_config.cluster_name] = withoutEnvoyEdsDefaults(camelKeys(d.endpoint_config));
  }
  return out;
}

/** What the hub's admin says the node gets now. */
export async function hubSays(hubUrl: string, nodeId: string): Promise<ByType> {
  const body = (await hubCall(hubUrl, 'GET', `/v1/xds/config/${encodeURIComponent(nodeId)}`)) as {
    resources: Record<string, Record<string, { resource: Json }>>;
  };
  const out: ByType = { clusters: {}, endpoints: {}, listeners: {}, routes: {} };
  for (const type of Object.keys(out) as (keyof ByType)[]) {
    for (const [name, r] of Object.entries(body.resources[type] ?? {})) out[type][name] = r.resource;
  }
  return out;
}

/**
 * Envoy's EDS dump shows an assignment as Envoy applies it: each endpoint with
 * an empty health_check_config and the policy's default overprovisioning
 * factor (140). Those two defaults are dropped before comparing; anything else
 * Envoy holds must be exactly what the hub sent.
 */
export function withoutEnvoyEdsDefaults(cla: Json): Json {
  const c = structuredClone(cla) as Record<string, any>;
  if (c['policy'] && Object.keys(c['policy']).length === 1 && c['policy'].overprovisioningFactor === 140)
    delete c['policy'];
  for (const group of c['endpoints'] ?? []) {
    for (const lb of group.lbEndpoints ?? []) {
      const hc = lb.endpoint?.healthCheckConfig;
      if (hc && Object.keys(hc).length === 0) delete lb.endpoint.healthCheckConfig;
    }
  }
  return c;
}

/**
 * Asserts Envoy holds exactly what the hub says: every resource Envoy holds is
 * the hub's, byte for byte in JSON; Envoy holds every cluster the hub offers
 * and every listener of its gateway (`<gateway>:<port>`).
 */
export async function assertConfigDumpAgrees(envoy: Envoy, hubUrl: string, gateway: string): Promise<void> {
  const held = await envoyHolds(envoy);
  const said = await hubSays(hubUrl, envoy.id);
  for (const type of Object.keys(held) as (keyof ByType)[]) {
    for (const [name, resource] of Object.entries(held[type])) {
      assert.ok(name in said[type], `Envoy holds ${type} ${name}, which the hub does not list for ${envoy.id}`);
      assert.deepStrictEqual(
        resource,
        type === 'endpoints' ? withoutEnvoyEdsDefaults(said[type][name]!) : said[type][name],
        `${type} ${name}`,
      );
    }
  }
  assert.deepEqual(Object.keys(held.clusters).sort(), Object.keys(said.clusters).sort(), 'clusters');
  const gatewayListeners = Object.keys(said.listeners).filter((n) => n.startsWith(`${gateway}:`));
  assert.ok(gatewayListeners.length > 0, 'the hub lists the gateway listeners');
  assert.deepEqual(Object.keys(held.listeners).sort(), gatewayListeners.sort(), 'listeners');
}
