// Which registered services are sidecars, and who serves each destination
// in the mesh, kept from the health views the catalog provider already
// watches: a connect-proxy instance is a sidecar (an Envoy whose node id is its
// service ID gets its resources), and the endpoints of a destination's mesh
// clusters are its proxies plus its Connect-native instances. Only the
// instances a change touched are looked at again (instance-diff.ts).
import type { CheckServiceNode } from '../../../catalog/types';
import { byNodeThenId } from '../endpoints';
import { diffInstances, type Instances, NO_INSTANCES, noInstances } from '../instance-diff';
import type { CatalogInputs, InputChanges } from '../view-inputs';

export interface Proxy {
  /** The proxy's service ID: the node id its Envoy connects with. */
  id: string;
  csn: CheckServiceNode;
  /** The service it fronts (Proxy.DestinationServiceName). */
  destination: string;
}

interface ServiceSlot {
  instances: Instances;
  proxies: readonly CheckServiceNode[];
  natives: readonly CheckServiceNode[];
}

export interface ProxyIndex {
  /** Proxies by ID. Two proxies with one ID (on different nodes): the first by node name. */
  readonly byId: ReadonlyMap<string, Proxy>;
  /** The endpoints of a destination's mesh clusters (same array while they do not change). */
  endpointsOf(destination: string): readonly CheckServiceNode[];
  /** The registered instances of the terminating gateway `name`. */
  terminatingGateways(name: string): readonly CheckServiceNode[];
  /** Looks again at what `changes` touched; returns the proxy IDs and destinations that changed. */
  update(inputs: CatalogInputs, changes: InputChanges): { proxies: Set<string>; destinations: Set<string> };
}

const NONE: readonly CheckServiceNode[] = Object.freeze([]);
/** Gateways whose Envoy is served as a proxy of its own service (its own listeners, clusters and secrets). */
export const isGateway = (c: CheckServiceNode): boolean =>
  c.Service.Kind === 'ingress-gateway' || c.Service.Kind === 'terminating-gateway';
export const isTerminating = (c: CheckServiceNode): boolean => c.Service.Kind === 'terminating-gateway';
const destOf = (csn: CheckServiceNode): string | undefined => {
  if (isGateway(csn)) return csn.Service.Service;
  const d = csn.Service.Proxy?.DestinationServiceName;
  return typeof d === 'string' && d !== '' ? d : undefined;
};

const isProxy = (c: CheckServiceNode): boolean =>
  (c.Service.Kind === 'connect-proxy' || isGateway(c)) && destOf(c) !== undefined;
const isNative = (c: CheckServiceNode): boolean =>
  c.Service.Kind !== 'connect-proxy' && c.Service.Connect?.Native === true;

/** `list` without `gone`, with `extra` merged in the views' order; `list` itself when neither has any. */
function patched(
  list: readonly CheckServiceNode[],
  gone: ReadonlySet<CheckServiceNode>,
  extra: readonly CheckServiceNode[],
): readonly CheckServiceNode[] {
  if (extra.length === 0 && (gone.size === 0 || !list.some((c) => gone.has(c)))) return list;
  const out = list
    .filter((c) => !gone.has(c))
    .concat(extra)
    .sort(byNodeThenId);
  return out.length === 0 ? NONE : out;
}

interface State {
  readonly slots: Map<string, ServiceSlot>;
  /** Services with proxies or Connect-native instances: the only ones the maps are built from. */
  readonly meshy: Set<string>;
  byId: Map<string, Proxy>;
  endpoints: Map<string, readonly CheckServiceNode[]>;
  terminating: Map<string, CheckServiceNode[]>;
}

type Touched = { proxies: Set<string>; destinations: Set<string> };

export function createProxyIndex(): ProxyIndex {
  const s: State = {
    slots: new Map(),
    meshy: new Set(),
    byId: new Map(),
    endpoints: new Map(),
    terminating: new Map(),
  };
  return {
    get byId() {
      return s.byId;
    },
    endpointsOf: (destination) => s.endpoints.get(destination) ?? NONE,
    terminatingGateways: (name) => s.terminating.get(name) ?? NONE,
    update(inputs, changes) {
      const names = changes.all
        ? new Set([...inputs.serviceList().map((x) => x.Name), ...s.slots.keys()])
        : changes.services;
      const touched: Touched = { proxies: new Set<string>(), destinations: new Set<string>() };
      for (const name of names) lookAgain(s, name, inputs.instances(name), touched);
      if (touched.proxies.size > 0 || touched.destinations.size > 0) rebuild(s);
      return touched;
    },
  };
}

/** One service's slot, patched with the instances that changed; notes the proxies and destinations they touch. */
function lookAgain(s: State, name: string, instances: Instances, touched: Touched): void {
  const { proxies, destinations } = touched;
  const old = s.slots.get(name);
  if (old?.instances === instances) return;
  // Only the instances that changed are looked at (the views keep unchanged ones as the same
  // objects): a write to a large service without sidecars costs a walk of references, not a
  // look at every instance.
  const { removed, added } = diffInstances(old?.instances ?? NO_INSTANCES, instances);
  const gone = new Set<CheckServiceNode>();
  let nativesMoved = false;
  for (const csn of removed) {
    if (isProxy(csn)) {
      gone.add(csn);
      proxies.add(csn.Service.ID);
      destinations.add(destOf(csn)!);
    } else if (isNative(csn)) {
      gone.add(csn);
      nativesMoved = true;
    }
  }
  const newProxies = added.filter(isProxy);
  const newNatives = added.filter(isNative);
  for (const csn of newProxies) {
    proxies.add(csn.Service.ID);
    destinations.add(destOf(csn)!);
  }
  if (nativesMoved || newNatives.length > 0) destinations.add(name);
  const slot: ServiceSlot = {
    instances,
    proxies: patched(old?.proxies ?? NONE, gone, newProxies),
    natives: patched(old?.natives ?? NONE, gone, newNatives),
  };
  if (noInstances(instances)) s.slots.delete(name);
  else s.slots.set(name, slot);
  if (slot.proxies.length > 0 || slot.natives.length > 0) s.meshy.add(name);
  else s.meshy.delete(name);
}

function rebuild(s: State): void {
  const ids = new Map<string, Proxy>();
  const eps = new Map<string, CheckServiceNode[]>();
  const terminating = new Map<string, CheckServiceNode[]>();
  const add = (dest: string, csn: CheckServiceNode) => {
    let list = eps.get(dest);
    if (!list) eps.set(dest, (list = []));
    list.push(csn);
  };
  for (const name of [...s.meshy].sort()) {
    const slot = s.slots.get(name)!;
    for (const csn of slot.proxies) {
      const destination = destOf(csn)!;
      if (!ids.has(csn.Service.ID)) ids.set(csn.Service.ID, { id: csn.Service.ID, csn, destination });
      // A gateway is no endpoint of its own service's mesh clusters (nothing dials it through the mesh);
      // a terminating gateway is one of the services it links (sidecars.ts joins them).
      if (!isGateway(csn)) add(destination, csn);
      else if (isTerminating(csn)) terminating.set(destination, [...(terminating.get(destination) ?? []), csn]);
    }
    for (const csn of slot.natives) add(name, csn);
  }
  s.byId = ids;
  s.terminating = terminating;
  const next = new Map<string, readonly CheckServiceNode[]>();
  for (const [dest, list] of eps) {
    const sorted = list.sort(byNodeThenId);
    const old = s.endpoints.get(dest);
    // Keep the old array when nothing in it changed, so the assignment built from it is not rebuilt.
    next.set(
      dest,
      old && old.length === sorted.length && old.every((c, i) => c === sorted[i]) ? old : Object.freeze(sorted),
    );
  }
  s.endpoints = next;
}
