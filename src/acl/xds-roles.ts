// Who an xDS node is in the mesh, as Consul decides what a stream must prove:
// a node whose id is a registered connect-proxy's service ID is that proxy (it
// is served the proxy's own resources, its leaf's private key among them), and
// a node whose cluster (else id) names a gateway — an ingress-gateway config
// entry, or a registered ingress, terminating or mesh gateway service — or
// whose id is a gateway service's ID is that gateway. Kept from the catalog's
// events (not from the views the provider translates), so a registration is
// known here before the provider can serve anything under it.
import type { Catalog, CatalogReader } from '../catalog/catalog';
import { type CatalogEvent, type NodeService, Topic } from '../catalog/types';
import { gatewayNameOf } from '../xds/translate/names';

const GATEWAY_KINDS = new Set(['ingress-gateway', 'terminating-gateway', 'mesh-gateway']);

/** What a node stands for, merged over every registration that names it. */
export interface XdsIdentity {
  /** The services the node's token needs service:write on: each proxy's destination, each gateway's own name. */
  readonly fronts: readonly string[];
  /** Why, for the refusal's text: `connect-proxy "web1-sidecar-proxy" of "web"`, `ingress-gateway "ig"`. */
  readonly because: readonly string[];
  /** True when some connect-proxy has the node's id: the node is served a sidecar's resources. */
  readonly sidecar: boolean;
  /** The proxies' upstream destinations (DestinationName), for naming each upstream listener's service. */
  readonly upstreams: readonly string[];
}

export interface XdsRoles {
  identityOf(node: { id: string; cluster: string }): XdsIdentity | undefined;
  /** Told the node ids (proxy and gateway service IDs) and gateway names whose identity may have moved. */
  onChange(listener: (ids: ReadonlySet<string>, gateways: ReadonlySet<string>) => void): () => void;
  close(): void;
}

interface ProxyReg {
  destination: string;
  upstreams: string[];
}

function upstreamsOf(svc: NodeService): string[] {
  const list = svc.Proxy?.['Upstreams'];
  if (!Array.isArray(list)) return [];
  return list.flatMap((u) => {
    const d = (u as Record<string, unknown> | null)?.['DestinationName'];
    return typeof d === 'string' && d !== '' ? [d] : [];
  });
}

function sameProxy(a: ProxyReg | undefined, b: ProxyReg | undefined): boolean {
  if (!a || !b) return a === b;
  if (a.destination !== b.destination || a.upstreams.length !== b.upstreams.length) return false;
  return a.upstreams.every((u, i) => u === b.upstreams[i]);
}

/** The registrations that give nodes a role, kept from the catalog's events. */
interface State {
  /** service ID → node name → registration. */
  readonly proxies: Map<string, Map<string, ProxyReg>>;
  /** gateway service ID → node name → gateway name; gateway name → instances. */
  readonly gatewayIds: Map<string, Map<string, string>>;
  readonly gatewayNames: Map<string, number>;
  readonly ingressEntries: Set<string>;
  readonly listeners: Set<(ids: ReadonlySet<string>, gateways: ReadonlySet<string>) => void>;
  memo: Map<string, XdsIdentity>;
}

export function createXdsRoles(catalog: Catalog): XdsRoles {
  const s: State = {
    proxies: new Map(),
    gatewayIds: new Map(),
    gatewayNames: new Map(),
    ingressEntries: new Set(),
    listeners: new Set(),
    memo: new Map(),
  };
  rebuild(s, catalog);
  const offApplied = catalog.onApplied((_index, events) => applyEvents(s, events));
  const offReset = catalog.onReset(() => reset(s, catalog));

  return {
    identityOf(node) {
      const gw = gatewayNameOf(node);
      const named =
        s.proxies.has(node.id) || s.gatewayIds.has(node.id) || s.ingressEntries.has(gw) || s.gatewayNames.has(gw);
      if (!named) return undefined;
      // One object per node while nothing moves: the ACL filter caches per identity.
      const key = `${node.id}\0${node.cluster}`;
      let id = s.memo.get(key);
      if (!id) {
        id = compute(s, node);
        if (id) s.memo.set(key, id);
      }
      return id;
    },
    onChange(listener) {
      s.listeners.add(listener);
      return () => s.listeners.delete(listener);
    },
    close() {
      offApplied();
      offReset();
      s.listeners.clear();
    },
  };
}

function put<V>(m: Map<string, Map<string, V>>, id: string, node: string, v: V | undefined): void {
  let byNode = m.get(id);
  if (v === undefined) {
    byNode?.delete(node);
    if (byNode?.size === 0) m.delete(id);
    return;
  }
  if (!byNode) m.set(id, (byNode = new Map()));
  byNode.set(node, v);
}

function setGateway(s: State, id: string, node: string, name: string | undefined): void {
  const { gatewayNames } = s;
  const old = s.gatewayIds.get(id)?.get(node);
  if (old === name) return;
  if (old !== undefined) {
    const n = (gatewayNames.get(old) ?? 1) - 1;
    if (n <= 0) gatewayNames.delete(old);
    else gatewayNames.set(old, n);
  }
  if (name !== undefined) gatewayNames.set(name, (gatewayNames.get(name) ?? 0) + 1);
  put(s.gatewayIds, id, node, name);
}

/** Records one instance (svc undefined: it is gone); adds what moved to ids/gateways. */
function noteService(
  s: State,
  node: string,
  id: string,
  svc: NodeService | undefined,
  ids: Set<string>,
  gws: Set<string>,
) {
  const dest = svc?.Kind === 'connect-proxy' ? svc.Proxy?.DestinationServiceName : undefined;
  const before = s.proxies.get(id)?.get(node);
  const fronts = svc && typeof dest === 'string' && dest !== '';
  const after = fronts ? { destination: dest, upstreams: upstreamsOf(svc) } : undefined;
  // A check's change re-registers the instance: only a change of what it fronts or reads matters here.
  if (!sameProxy(before, after)) {
    put(s.proxies, id, node, after);
    ids.add(id);
  }
  const oldGw = s.gatewayIds.get(id)?.get(node);
  const gw = svc && GATEWAY_KINDS.has(svc.Kind) ? svc.Service : undefined;
  if (oldGw === gw) return;
  setGateway(s, id, node, gw);
  ids.add(id);
  for (const g of [oldGw, gw]) if (g !== undefined) gws.add(g);
}

function rebuild(s: State, reader: CatalogReader): void {
  s.proxies.clear();
  s.gatewayIds.clear();
  s.gatewayNames.clear();
  s.ingressEntries.clear();
  const sink = new Set<string>();
  for (const n of reader.nodes().value) {
    for (const svc of reader.node(n.Node).value?.Services ?? []) noteService(s, n.Node, svc.ID, svc, sink, sink);
  }
  for (const e of reader.configEntries('ingress-gateway').value) s.ingressEntries.add(e.Name);
}

function emit(s: State, ids: ReadonlySet<string>, gws: ReadonlySet<string>): void {
  if (ids.size === 0 && gws.size === 0) return;
  s.memo = new Map();
  for (const l of s.listeners) l(ids, gws);
}

function applyEvents(s: State, events: readonly CatalogEvent[]): void {
  const ids = new Set<string>();
  const gws = new Set<string>();
  for (const e of events) {
    const p = e.payload;
    if (e.topic === Topic.ServiceHealth && p.type === 'service-health') {
      noteService(s, p.csn.Node.Node, p.csn.Service.ID, p.op === 'register' ? p.csn.Service : undefined, ids, gws);
    } else if (e.topic === Topic.IngressGateway && p.type === 'config-entry') {
      if (p.op === 'upsert') s.ingressEntries.add(p.entry.Name);
      else s.ingressEntries.delete(p.entry.Name);
      gws.add(p.entry.Name);
    }
  }
  emit(s, ids, gws);
}

function reset(s: State, catalog: Catalog): void {
  const before = new Set([...s.proxies.keys(), ...s.gatewayIds.keys()]);
  const gwBefore = new Set([...s.gatewayNames.keys(), ...s.ingressEntries]);
  rebuild(s, catalog);
  const ids = new Set([...before, ...s.proxies.keys(), ...s.gatewayIds.keys()]);
  emit(s, ids, new Set([...gwBefore, ...s.gatewayNames.keys(), ...s.ingressEntries]));
}

function compute(s: State, node: { id: string; cluster: string }): XdsIdentity | undefined {
  const fronts = new Set<string>();
  const because: string[] = [];
  const upstreams = new Set<string>();
  const regs = s.proxies.get(node.id);
  for (const r of regs?.values() ?? []) {
    fronts.add(r.destination);
    because.push(`connect-proxy "${node.id}" of "${r.destination}"`);
    for (const u of r.upstreams) upstreams.add(u);
  }
  const gw = gatewayNameOf(node);
  const gateways = new Set<string>(s.gatewayIds.get(node.id)?.values() ?? []);
  if (s.ingressEntries.has(gw) || s.gatewayNames.has(gw)) gateways.add(gw);
  for (const g of gateways) {
    fronts.add(g);
    because.push(`gateway "${g}"`);
  }
  if (fronts.size === 0) return undefined;
  return Object.freeze({ fronts: [...fronts], because, sidecar: regs !== undefined, upstreams: [...upstreams] });
}
