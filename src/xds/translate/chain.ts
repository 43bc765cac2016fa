// Discovery chains, compiled as Consul compiles them: a request for service S
// passes S's service-router (first matching route picks a destination), then
// the destination's service-splitter (weighted splits), then each target's
// service-resolver (redirect, default subset, subsets) and lands on a cluster.
// The result is Envoy routes: a route per router rule, then the default route,
// each to one cluster or to weighted clusters.
//
// Cluster names: a service's own cluster is its resource name `S`; a resolver
// subset `v1` of S is cluster `v1.S` (Consul prefixes the subset the same
// way), an EDS cluster whose assignment holds only S's instances that pass the
// subset's Filter (Consul's filter language, src/filter) and, with OnlyPassing,
// only passing ones.
import type { CheckServiceNode, ConfigEntry } from '../../catalog/types';
import { CHECK_SERVICE_NODE_FIELDS, compileFilter } from '../../filter/index';
import { durationOfMs, entryDurationMs, entryUint, list, record, refOf, str } from './inputs';
import { type ServiceRef, serviceResourceName } from './names';
import { scaleWeights } from './route';

/** The chain-shaping entries, each by the resource name of the service it is for. */
export interface ChainEntries {
  routers: ReadonlyMap<string, ConfigEntry>;
  splitters: ReadonlyMap<string, ConfigEntry>;
  resolvers: ReadonlyMap<string, ConfigEntry>;
}

export const NO_CHAIN: ChainEntries = { routers: new Map(), splitters: new Map(), resolvers: new Map() };

/** Redirects and nested splitters deeper than this are cut (Consul refuses cycles at write time). */
const MAX_DEPTH = 8;

/** Cluster name of a subset of a service. */
export function subsetClusterName(service: string, subset: string): string {
  return `${subset}.${service}`;
}

/** The subsets a resolver defines: name → instance predicate. */
export function resolverSubsets(resolver: ConfigEntry | undefined): Map<string, (csn: CheckServiceNode) => boolean> {
  const out = new Map<string, (csn: CheckServiceNode) => boolean>();
  for (const [name, raw] of Object.entries(record(resolver?.['Subsets']) ?? {})) {
    const subset = record(raw);
    const filter = str(subset?.['Filter']);
    const onlyPassing = subset?.['OnlyPassing'] === true;
    let match: (csn: CheckServiceNode) => boolean = () => true;
    if (filter !== undefined) {
      try {
        match = compileFilter(filter, CHECK_SERVICE_NODE_FIELDS);
      } catch {
        // A filter the language refuses selects nothing, rather than everything.
        match = () => false;
      }
    }
    out.set(name, onlyPassing ? (csn) => csn.Checks.every((c) => c.Status === 'passing') && match(csn) : match);
  }
  return out;
}

interface Target {
  cluster: string;
}

/** (service, subset) through the resolver: redirect, then the default subset, then the subset's cluster. */
export function resolveTarget(ref: ServiceRef, subset: string | undefined, chain: ChainEntries, depth = 0): Target {
  const name = serviceResourceName(ref);
  const resolver = chain.resolvers.get(name);
  const redirect = record(resolver?.['Redirect']);
  if (redirect && depth < MAX_DEPTH) {
    const to: ServiceRef = refOf(redirect, 'Service') ?? ref;
    const toSubset = str(redirect['ServiceSubset']);
    if (serviceResourceName(to) !== name || toSubset !== subset) return resolveTarget(to, toSubset, chain, depth + 1);
  }
  const wanted = subset ?? str(resolver?.['DefaultSubset']);
  if (wanted !== undefined && record(resolver?.['Subsets'])?.[wanted] !== undefined)
    return { cluster: subsetClusterName(name, wanted) };
  return { cluster: name };
}

interface HeaderOps {
  request_headers_to_add?: Record<string, unknown>[];
  request_headers_to_remove?: string[];
  response_headers_to_add?: Record<string, unknown>[];
  response_headers_to_remove?: string[];
}

/** Consul's HTTPHeaderModifiers {Add, Set, Remove} → Envoy header operations (Add appends, Set overwrites). */
function headerOps(request: unknown, response: unknown): HeaderOps {
  const out: HeaderOps = {};
  const side = (
    mods: Record<string, unknown> | undefined,
    add: 'request_headers_to_add' | 'response_headers_to_add',
    remove: 'request_headers_to_remove' | 'response_headers_to_remove',
  ) => {
    if (!mods) return;
    const adds: Record<string, unknown>[] = [];
    for (const [key, value] of Object.entries(record(mods['Add']) ?? {})) {
      adds.push({ header: { key, value: String(value) }, append_action: 'APPEND_IF_EXISTS_OR_ADD' });
    }
    for (const [key, value] of Object.entries(record(mods['Set']) ?? {})) {
      adds.push({ header: { key, value: String(value) }, append_action: 'OVERWRITE_IF_EXISTS_OR_ADD' });
    }
    const removes = list(mods['Remove']).filter((h): h is string => typeof h === 'string' && h !== '');
    if (adds.length > 0) out[add] = adds;
    if (removes.length > 0) out[remove] = removes;
  };
  side(record(request), 'request_headers_to_add', 'request_headers_to_remove');
  side(record(response), 'response_headers_to_add', 'response_headers_to_remove');
  return out;
}

interface Leaf {
  cluster: string;
  /** Share of the traffic, 0–100. */
  weight: number;
  ops: HeaderOps;
}

/** A destination through splitters (nested ones flattened, weights multiplied) down to clusters. */
function leavesOf(
  ref: ServiceRef,
  subset: string | undefined,
  chain: ChainEntries,
  share: number,
  ops: HeaderOps,
  depth: number,
): Leaf[] {
  const name = serviceResourceName(ref);
  const splitter = subset === undefined ? chain.splitters.get(name) : undefined;
  if (!splitter || depth >= MAX_DEPTH)
    return [{ cluster: resolveTarget(ref, subset, chain).cluster, weight: share, ops }];
  const out: Leaf[] = [];
  for (const raw of list(splitter['Splits'])) {
    const split = record(raw);
    const weight = typeof split?.['Weight'] === 'number' ? (split['Weight'] as number) : 0;
    if (!split || weight <= 0) continue;
    const to = refOf(split, 'Service') ?? ref;
    const toSubset = str(split['ServiceSubset']);
    const splitOps = { ...ops, ...headerOps(split['RequestHeaders'], split['ResponseHeaders']) };
    // A split back to the splitter's own service (no subset) goes to its resolver, not round again.
    if (serviceResourceName(to) === name && toSubset === undefined) {
      out.push({ cluster: resolveTarget(to, undefined, chain).cluster, weight: (share * weight) / 100, ops: splitOps });
    } else {
      out.push(...leavesOf(to, toSubset, chain, (share * weight) / 100, splitOps, depth + 1));
    }
  }
  return out;
}

/** The route action for a destination: one cluster, or weighted clusters summing to 100. */
function destinationAction(ref: ServiceRef, subset: string | undefined, chain: ChainEntries): Record<string, unknown> {
  const leaves = leavesOf(ref, subset, chain, 100, {}, 0);
  // The same cluster reached twice (e.g. two splits to one subset) is one weighted entry.
  const merged = new Map<string, Leaf>();
  for (const l of leaves) {
    const prev = merged.get(l.cluster);
    merged.set(l.cluster, prev ? { ...prev, weight: prev.weight + l.weight } : l);
  }
  const all = [...merged.values()];
  if (all.length === 1 && Object.keys(all[0]!.ops).length === 0) return { cluster: all[0]!.cluster };
  if (all.length === 0) return { cluster: resolveTarget(ref, subset, chain).cluster };
  const scaled = scaleWeights(all.map((l) => ({ name: l.cluster, weight: l.weight })));
  const clusters = scaled.map((c) => ({ name: c.name, weight: c.weight, ...merged.get(c.name)!.ops }));
  return { weighted_clusters: { clusters } };
}

/**
 * Who a route list is for. Envoy takes header matchers as `string_match`;
 * gRPC C-core 1.51 NACKs a `string_match` header matcher ("Invalid route
 * header matcher specified") and takes only the older `exact_match`,
 * `prefix_match`, `suffix_match` and `safe_regex_match`, which grpc-js-xds
 * takes too. RouteConfiguration `S` is for proxyless clients; gateway routes
 * are for Envoy.
 */
export type RouteFlavor = 'envoy' | 'grpc';

type MatchKind = 'exact' | 'prefix' | 'suffix' | 'regex';

/** One header matcher in the flavour's spelling. */
export function headerMatcher(
  name: string,
  kind: MatchKind,
  value: string,
  flavor: RouteFlavor,
): Record<string, unknown> {
  if (flavor === 'grpc')
    return kind === 'regex' ? { name, safe_regex_match: { regex: value } } : { name, [`${kind}_match`]: value };
  return { name, string_match: kind === 'regex' ? { safe_regex: { regex: value } } : { [kind]: value } };
}

function headerOf(name: string, h: Record<string, unknown>, flavor: RouteFlavor): Record<string, unknown> {
  for (const [field, kind] of [
    ['Exact', 'exact'],
    ['Prefix', 'prefix'],
    ['Suffix', 'suffix'],
    ['Regex', 'regex'],
  ] as const) {
    const value = str(h[field]);
    if (value !== undefined) return headerMatcher(name, kind, value, flavor);
  }
  return { name, present_match: true };
}

/** A router rule's Match.HTTP → Envoy RouteMatch. */
function routerMatch(http: Record<string, unknown> | undefined, flavor: RouteFlavor): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (str(http?.['PathExact']) !== undefined) out['path'] = http!['PathExact'];
  else if (str(http?.['PathPrefix']) !== undefined) out['prefix'] = http!['PathPrefix'];
  else if (str(http?.['PathRegex']) !== undefined) out['safe_regex'] = { regex: http!['PathRegex'] };
  else out['prefix'] = '/';
  if (http?.['CaseInsensitive'] === true) out['case_sensitive'] = { value: false };
  const headers: Record<string, unknown>[] = [];
  for (const h of list(http?.['Header']).map(record)) {
    const name = str(h?.['Name']);
    if (!h || name === undefined) continue;
    const m = headerOf(name, h, flavor);
    if (h['Invert'] === true) m['invert_match'] = true;
    headers.push(m);
  }
  const methods = list(http?.['Methods']).filter((m): m is string => typeof m === 'string' && m !== '');
  // Consul matches the method list with one regex on :method.
  if (methods.length > 0) headers.push(headerMatcher(':method', 'regex', methods.join('|'), flavor));
  if (headers.length > 0) out['headers'] = headers;
  const query: Record<string, unknown>[] = [];
  for (const q of list(http?.['QueryParam']).map(record)) {
    const name = str(q?.['Name']);
    if (!q || name === undefined) continue;
    if (str(q['Exact']) !== undefined) query.push({ name, string_match: { exact: q['Exact'] } });
    else if (str(q['Regex']) !== undefined) query.push({ name, string_match: { safe_regex: { regex: q['Regex'] } } });
    else query.push({ name, present_match: true });
  }
  if (query.length > 0) out['query_parameters'] = query;
  return out;
}

/** Router destination options → route action fields (rewrite, timeouts, retries). */
function destinationOptions(d: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const rewrite = str(d['PrefixRewrite']);
  if (rewrite !== undefined) out['prefix_rewrite'] = rewrite;
  const timeout = entryDurationMs(d['RequestTimeout']);
  if (timeout !== undefined && timeout > 0) out['timeout'] = durationOfMs(timeout);
  const idle = entryDurationMs(d['IdleTimeout']);
  if (idle !== undefined && idle > 0) out['idle_timeout'] = durationOfMs(idle);
  const retries = entryUint(d['NumRetries']);
  const on = list(d['RetryOn']).filter((r): r is string => typeof r === 'string' && r !== '');
  if (d['RetryOnConnectFailure'] === true) on.push('connect-failure');
  const codes = list(d['RetryOnStatusCodes']).filter((c): c is number => typeof c === 'number');
  if (codes.length > 0) on.push('retriable-status-codes');
  if (retries !== undefined || on.length > 0) {
    out['retry_policy'] = {
      ...(on.length > 0 ? { retry_on: [...new Set(on)].join(',') } : {}),
      // Consul's default when only conditions are given is one retry.
      num_retries: { value: retries ?? 1 },
      ...(codes.length > 0 ? { retriable_status_codes: codes } : {}),
    };
  }
  return out;
}

/**
 * The routes of service S's chain: one per router rule, then the default
 * route (S through its splitter and resolver). Without any chain entry this
 * is the plain default route to cluster S.
 */
export function chainRoutes(
  service: ServiceRef,
  chain: ChainEntries,
  flavor: RouteFlavor = 'envoy',
): Record<string, unknown>[] {
  const name = serviceResourceName(service);
  const routes: Record<string, unknown>[] = [];
  for (const raw of list(chain.routers.get(name)?.['Routes'])) {
    const rule = record(raw);
    if (!rule) continue;
    const d = record(rule['Destination']) ?? {};
    const to = refOf(d, 'Service') ?? service;
    const action = { ...destinationAction(to, str(d['ServiceSubset']), chain), ...destinationOptions(d) };
    routes.push({
      match: routerMatch(record(record(rule['Match'])?.['HTTP']), flavor),
      route: action,
      ...headerOps(d['RequestHeaders'], d['ResponseHeaders']),
    });
  }
  const action = destinationAction(service, undefined, chain);
  const timeout = entryDurationMs(chain.resolvers.get(name)?.['RequestTimeout']);
  routes.push({
    match: { prefix: '' },
    route: timeout !== undefined && timeout > 0 ? { ...action, timeout: durationOfMs(timeout) } : action,
  });
  return routes;
}

/** Every service a chain entry sends traffic to (they need clusters, X-WARM-2). */
export function chainServices(
  routers: readonly ConfigEntry[],
  splitters: readonly ConfigEntry[],
  resolvers: readonly ConfigEntry[],
): ServiceRef[] {
  const out: ServiceRef[] = [];
  for (const e of routers)
    for (const r of list(e['Routes'])) {
      const d = record(record(r)?.['Destination']);
      const ref = d && refOf(d, 'Service');
      if (ref) out.push(ref);
    }
  for (const e of splitters)
    for (const s of list(e['Splits'])) {
      const ref = record(s) && refOf(record(s)!, 'Service');
      if (ref) out.push(ref);
    }
  for (const e of resolvers) {
    const ref = record(e['Redirect']) && refOf(record(e['Redirect'])!, 'Service');
    if (ref) out.push(ref);
  }
  return out;
}
