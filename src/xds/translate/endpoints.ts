// ClusterLoadAssignment `S` (docs/xds.md). SotW: not full state — a
// response may carry any subset (X-RESP-3). Every rule that real clients
// enforce is applied here, because one CLA is shared by Envoy and gRPC clients
// and one bad endpoint would make a client NACK the whole assignment:
// IP-literal addresses, no duplicate address, a locality with a
// load_balancing_weight on every group, contiguous priorities from 0.
import type { CheckServiceNode, ConfigEntry } from '../../catalog/types';
import { isIpLiteral, list, record, refOf, str } from './inputs';
import type { ServiceRef } from './names';

/** One failover target of a service-resolver: another service (or a subset of one), or the same one in another datacenter. */
export interface FailoverTarget {
  ref: ServiceRef;
  /** A subset of the target's resolver: only the instances it selects. */
  subset?: string;
  datacenter?: string;
}

/**
 * The resolver's failover targets in priority order (priority 1, 2, ...) for
 * the service itself or for one of its subsets: `Failover` is keyed by subset
 * name, `*` standing for any subset without an entry of its own (and for the
 * service itself). `Targets` wins over `Service`/`ServiceSubset`/`Datacenters`,
 * as in Consul; a target naming neither another service nor another subset
 * nor a datacenter is the source itself and is dropped.
 */
export function failoverTargets(
  self: ServiceRef,
  resolver: ConfigEntry | undefined,
  subset?: string,
): FailoverTarget[] {
  const byKey = record(resolver?.['Failover']);
  const failover = record((subset !== undefined ? byKey?.[subset] : undefined) ?? byKey?.['*']);
  if (!failover) return [];
  const targetOf = (t: Record<string, unknown>, datacenter?: string): FailoverTarget => {
    const ref = refOf(t, 'Service') ?? self;
    const toSubset = str(t['ServiceSubset']);
    return {
      ref,
      ...(toSubset !== undefined ? { subset: toSubset } : {}),
      ...(datacenter !== undefined ? { datacenter } : {}),
    };
  };
  const isSource = (t: FailoverTarget) => t.ref.name === self.name && t.subset === subset && t.datacenter === undefined;
  const targets = list(failover['Targets'])
    .map(record)
    .filter((t) => t !== undefined);
  if (targets.length > 0) return targets.map((t) => targetOf(t, str(t['Datacenter']))).filter((t) => !isSource(t));
  const dcs = list(failover['Datacenters']).filter((d): d is string => typeof d === 'string' && d !== '');
  if (dcs.length > 0) return dcs.map((datacenter) => targetOf(failover, datacenter));
  return [targetOf(failover)].filter((t) => !isSource(t));
}

export type InstanceHealth = 'passing' | 'warning' | 'critical';

/** Worst status of an instance's checks (node checks included); maintenance counts as critical. */
export function instanceHealth(csn: CheckServiceNode): InstanceHealth {
  let worst: InstanceHealth = 'passing';
  for (const check of csn.Checks) {
    if (check.Status === 'critical' || check.Status === 'maintenance') return 'critical';
    if (check.Status === 'warning') worst = 'warning';
  }
  return worst;
}

export interface LoadAssignmentInput {
  /** Resource name (cluster name). */
  name: string;
  /** The service's own instances. */
  instances: readonly CheckServiceNode[];
  /** The service they are instances of, when `name` is a subset's cluster (`<subset>.S`); default `name`. */
  service?: string;
  /** Failover groups in order, each with the instances of its target. */
  failover?: readonly { target: FailoverTarget; instances: readonly CheckServiceNode[] }[];
  /** Keep critical instances as UNHEALTHY instead of leaving them out. */
  keepUnhealthy?: boolean;
}

export interface PlainEndpoint {
  /** address:port: no two endpoints of one assignment may share it. */
  key: string;
  /** region and zone: the locality it is grouped in. */
  localityKey: string;
  region: string;
  zone: string;
  weight: number;
  lb: Record<string, unknown>;
}

// Instances are frozen and keep their identity in the health views while they do
// not change, so each one is turned into an endpoint once, not on every rebuild of
// its service's assignment (a service's assignment is rebuilt whenever any of its
// instances changes: the per-instance work was most of the hub's CPU per write).
const endpointMemo = {
  keep: new WeakMap<CheckServiceNode, PlainEndpoint | null>(),
  drop: new WeakMap<CheckServiceNode, PlainEndpoint | null>(),
};

/** endpointOf, once per instance object and keepUnhealthy (the same object every time, so callers may compare by identity). */
export function memoEndpointOf(csn: CheckServiceNode, keepUnhealthy: boolean): PlainEndpoint | undefined {
  const memo = keepUnhealthy ? endpointMemo.keep : endpointMemo.drop;
  let ep = memo.get(csn);
  if (ep === undefined) memo.set(csn, (ep = endpointOf(csn, keepUnhealthy) ?? null));
  return ep ?? undefined;
}

/** Instance → endpoint, or undefined when it must be left out (critical, weight 0, not an IP literal). */
function endpointOf(csn: CheckServiceNode, keepUnhealthy: boolean): PlainEndpoint | undefined {
  const address = csn.Service.Address !== '' ? csn.Service.Address : csn.Node.Address;
  // One CLA is shared by Envoy and gRPC clients; gRPC NACKs a hostname (and EDS
  // clusters in Envoy do not resolve names either), so non-IP instances are left out.
  if (!isIpLiteral(address) || !(csn.Service.Port > 0)) return undefined;
  const health = instanceHealth(csn);
  if (health === 'critical' && !keepUnhealthy) return undefined;
  const weights = csn.Service.Weights ?? { Passing: 1, Warning: 1 };
  const weight = health === 'warning' ? weights.Warning : weights.Passing;
  // load_balancing_weight must be >= 1; Consul's weight 0 means "send nothing".
  if (!(weight >= 1)) return undefined;
  const locality = csn.Service.Locality ?? csn.Node.Locality;
  const zone = locality?.Zone || csn.Node.Meta?.['zone'] || '';
  return {
    key: `${address}:${csn.Service.Port}`,
    localityKey: `${csn.Node.Datacenter}\n${zone}`,
    region: csn.Node.Datacenter,
    zone,
    weight,
    lb: {
      endpoint: { address: { socket_address: { address, port_value: csn.Service.Port } } },
      health_status: health === 'critical' ? 'UNHEALTHY' : 'HEALTHY',
      load_balancing_weight: { value: Math.min(weight, 0xffff_ffff) },
    },
  };
}

/** The order of the health views (node name, then service ID): the order of an assignment's endpoints. */
export const byNodeThenId = (a: CheckServiceNode, b: CheckServiceNode): number =>
  a.Node.Node < b.Node.Node
    ? -1
    : a.Node.Node > b.Node.Node
      ? 1
      : a.Service.ID < b.Service.ID
        ? -1
        : a.Service.ID > b.Service.ID
          ? 1
          : 0;

function isSorted(list: readonly CheckServiceNode[]): boolean {
  for (let i = 1; i < list.length; i++) if (byNodeThenId(list[i - 1]!, list[i]!) > 0) return false;
  return true;
}

/** The ClusterLoadAssignment as a plain object for encodeResource. */
export function buildLoadAssignment(input: LoadAssignmentInput): Record<string, unknown> {
  const keepUnhealthy = input.keepUnhealthy ?? false;
  const failoverDcs = new Set(
    (input.failover ?? [])
      .filter((f) => f.target.datacenter !== undefined && f.target.ref.name === (input.service ?? input.name))
      .map((f) => f.target.datacenter),
  );
  const groups: (readonly CheckServiceNode[])[] = [
    failoverDcs.size > 0 ? input.instances.filter((i) => !failoverDcs.has(i.Node.Datacenter)) : input.instances,
    ...(input.failover ?? []).map((f) =>
      f.target.datacenter === undefined
        ? f.instances
        : f.instances.filter((i) => i.Node.Datacenter === f.target.datacenter),
    ),
  ];
  const seen = new Set<string>();
  const localities: Record<string, unknown>[] = [];
  let priority = 0;
  for (const group of groups) {
    const byLocality = new Map<
      string,
      { region: string; zone: string; weight: number; lbs: Record<string, unknown>[] }
    >();
    // The views deliver instances in this order already: sort only when they are not.
    for (const csn of isSorted(group) ? group : [...group].sort(byNodeThenId)) {
      const ep = memoEndpointOf(csn, keepUnhealthy);
      // A duplicate address anywhere in the CLA makes gRPC NACK it: first one wins.
      if (!ep || seen.has(ep.key)) continue;
      seen.add(ep.key);
      let loc = byLocality.get(ep.localityKey);
      if (!loc) byLocality.set(ep.localityKey, (loc = { region: ep.region, zone: ep.zone, weight: 0, lbs: [] }));
      loc.lbs.push(ep.lb);
      if (ep.lb['health_status'] === 'HEALTHY') loc.weight += ep.weight;
    }
    // Priorities must be contiguous from 0 (gRPC NACKs a gap), so a failover
    // group with nothing to offer takes no priority.
    if (byLocality.size === 0) continue;
    const sorted = [...byLocality.values()].sort((a, b) =>
      `${a.region}\n${a.zone}` < `${b.region}\n${b.zone}` ? -1 : 1,
    );
    for (const loc of sorted) {
      localities.push({
        locality: { region: loc.region, zone: loc.zone },
        lb_endpoints: loc.lbs,
        // Every locality carries a weight (gRPC drops localities without one);
        // the sum of its healthy endpoint weights keeps the split proportional.
        load_balancing_weight: { value: Math.min(Math.max(loc.weight, 1), 0xffff_ffff) },
        priority,
      });
    }
    priority++;
  }
  return { cluster_name: input.name, endpoints: localities };
}
