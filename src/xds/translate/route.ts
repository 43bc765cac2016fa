// RouteConfiguration `S` (docs/xds.md): one virtual host `S` matching
// any authority, the rules of every http-route that names S as a parent, and a
// default route to cluster S last. SotW: not full state (X-RESP-3).
// The same route list is reused by ingress gateways (ingress.ts).
import type { ConfigEntry } from '../../catalog/types';
import { type ChainEntries, chainRoutes, headerMatcher, NO_CHAIN, type RouteFlavor } from './chain';
import { list, record, refOf, str } from './inputs';
import { type ServiceRef, serviceResourceName } from './names';

/** Weighted backends are scaled to sum to 100: the total C-core 1.51 assumes when total_weight is unset (it is deprecated). */
const WEIGHT_TOTAL = 100;

/** Does this http-route entry name the service as a parent? */
export function routeNamesParent(entry: ConfigEntry, service: ServiceRef): boolean {
  const target = serviceResourceName(service);
  return list(entry['Parents']).some((p) => {
    const ref = record(p) && refOf(record(p)!);
    return ref !== undefined && serviceResourceName(ref) === target;
  });
}

/** Every service an http-route sends traffic to (clusters a route may point at). */
export function routeBackends(entry: ConfigEntry): ServiceRef[] {
  const out: ServiceRef[] = [];
  for (const rule of list(entry['Rules'])) {
    for (const svc of list(record(rule)?.['Services'])) {
      const ref = record(svc) && refOf(record(svc)!);
      if (ref) out.push(ref);
    }
  }
  return out;
}

/**
 * Routes for service S: http-route rules (entries in name order, rules in
 * order), then S's discovery chain (its service-router rules, then the
 * default route through its splitter and resolver; chain.ts).
 */
export function routesForService(
  service: ServiceRef,
  httpRoutes: readonly ConfigEntry[],
  chain: ChainEntries = NO_CHAIN,
  flavor: RouteFlavor = 'envoy',
): Record<string, unknown>[] {
  const routes: Record<string, unknown>[] = [];
  const entries = httpRoutes
    .filter((e) => routeNamesParent(e, service))
    .sort((a, b) => (a.Name < b.Name ? -1 : a.Name > b.Name ? 1 : 0));
  for (const entry of entries) {
    for (const rule of list(entry['Rules'])) {
      const r = record(rule);
      if (!r) continue;
      const action = routeActionOf(r);
      if (!action) continue;
      const matches = list(r['Matches'])
        .map(record)
        .filter((m) => m !== undefined);
      // No Matches = every request (Consul's default for a rule).
      for (const match of matches.length > 0 ? matches : [{}]) {
        routes.push({ match: routeMatchOf(match, flavor), route: action });
      }
    }
  }
  routes.push(...chainRoutes(service, chain, flavor));
  return routes;
}

/** The RouteConfiguration as a plain object for encodeResource. */
export function buildRouteConfiguration(
  service: ServiceRef,
  httpRoutes: readonly ConfigEntry[],
  chain: ChainEntries = NO_CHAIN,
): Record<string, unknown> {
  const name = serviceResourceName(service);
  return {
    name,
    // RouteConfiguration S is what proxyless gRPC clients ask for (gateways have their own).
    virtual_hosts: [{ name, domains: ['*'], routes: routesForService(service, httpRoutes, chain, 'grpc') }],
  };
}

function stringMatchOf(kind: string | undefined, value: string): Record<string, unknown> | undefined {
  switch ((kind ?? 'exact').toLowerCase()) {
    case 'exact':
      return { exact: value };
    case 'prefix':
      return { prefix: value };
    case 'suffix':
      return { suffix: value };
    case 'regex':
      return { safe_regex: { regex: value } };
    default:
      return undefined;
  }
}

/** One HTTPMatch → RouteMatch: path (exact/prefix/regex), headers, method, query. */
function routeMatchOf(match: Record<string, unknown>, flavor: RouteFlavor): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const path = record(match['Path']);
  const pathValue = str(path?.['Value']);
  const pathKind = (str(path?.['Match']) ?? 'prefix').toLowerCase();
  if (pathValue !== undefined && pathKind === 'exact') out['path'] = pathValue;
  else if (pathValue !== undefined && pathKind === 'regex') out['safe_regex'] = { regex: pathValue };
  else out['prefix'] = pathValue ?? '';
  const headers: Record<string, unknown>[] = [];
  for (const h of list(match['Headers']).map(record)) {
    const name = str(h?.['Name']);
    if (!h || name === undefined) continue;
    const kind = str(h['Match'])?.toLowerCase();
    if (kind === 'present') headers.push({ name, present_match: true });
    else {
      const k = (kind ?? 'exact') as 'exact' | 'prefix' | 'suffix' | 'regex';
      if (['exact', 'prefix', 'suffix', 'regex'].includes(k))
        headers.push(headerMatcher(name, k, str(h['Value']) ?? '', flavor));
    }
  }
  const method = str(match['Method']);
  if (method !== undefined) headers.push(headerMatcher(':method', 'exact', method.toUpperCase(), flavor));
  if (headers.length > 0) out['headers'] = headers;
  const query: Record<string, unknown>[] = [];
  for (const q of list(match['Query']).map(record)) {
    const name = str(q?.['Name']);
    if (!q || name === undefined) continue;
    const kind = str(q['Match'])?.toLowerCase();
    if (kind === 'present') query.push({ name, present_match: true });
    else if (kind === undefined || kind === 'exact' || kind === 'regex') {
      query.push({ name, string_match: stringMatchOf(kind, str(q['Value']) ?? '') });
    }
  }
  if (query.length > 0) out['query_parameters'] = query;
  return out;
}

/** Rule backends → `cluster` (one) or `weighted_clusters` summing to WEIGHT_TOTAL; URLRewrite → prefix_rewrite. */
function routeActionOf(rule: Record<string, unknown>): Record<string, unknown> | undefined {
  const backends: { name: string; weight: number }[] = [];
  for (const s of list(rule['Services']).map(record)) {
    const ref = s && refOf(s);
    if (!ref) continue;
    const w = s['Weight'];
    backends.push({ name: serviceResourceName(ref), weight: typeof w === 'number' && w >= 0 ? Math.floor(w) : 1 });
  }
  if (backends.length === 0) return undefined;
  const action: Record<string, unknown> = {};
  const positive = backends.filter((b) => b.weight > 0);
  if (backends.length === 1 || positive.length === 1) {
    action['cluster'] = (positive[0] ?? backends[0]!).name;
  } else {
    action['weighted_clusters'] = {
      clusters: scaleWeights(positive.length > 0 ? positive : backends.map((b) => ({ ...b, weight: 1 }))),
    };
  }
  const rewrite = str(record(record(rule['Filters'])?.['URLRewrite'])?.['Path']);
  if (rewrite !== undefined) action['prefix_rewrite'] = rewrite;
  return action;
}

/**
 * Scales weights to sum exactly to WEIGHT_TOTAL (largest remainder). A backend
 * whose share rounds to 0 is dropped rather than sent with weight 0.
 */
export function scaleWeights(
  backends: readonly { name: string; weight: number }[],
): { name: string; weight: { value: number } }[] {
  const sum = backends.reduce((s, b) => s + b.weight, 0);
  const exact = backends.map((b) => (b.weight * WEIGHT_TOTAL) / sum);
  const floors = exact.map(Math.floor);
  let left = WEIGHT_TOTAL - floors.reduce((s, n) => s + n, 0);
  const order = exact.map((e, i) => ({ i, r: e - floors[i]! })).sort((a, b) => b.r - a.r || a.i - b.i);
  for (const { i } of order) {
    if (left === 0) break;
    floors[i]!++;
    left--;
  }
  return backends.map((b, i) => ({ name: b.name, weight: { value: floors[i]! } })).filter((c) => c.weight.value > 0);
}
