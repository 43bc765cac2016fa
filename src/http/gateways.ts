// Reads that join gateway config entries with the catalog:
// /v1/catalog/gateway-services/:gateway (what an ingress gateway exposes, or
// which services a terminating gateway links) and
// /v1/health/ingress/:service (the gateways that expose a service).
import type { CatalogReader, Indexed } from '../catalog/catalog';
import { terminatingLinks } from '../catalog/terminating-links';
import type { CheckServiceNode, ConfigEntry } from '../catalog/types';
import { joined } from '../catalog/watch-keys';

interface Listener {
  Port?: number;
  Protocol?: string;
  Services?: Array<{ Name?: string; Hosts?: string[]; Namespace?: string; Partition?: string }>;
}

export interface GatewayService {
  Gateway: { Name: string; Namespace: string; Partition: string };
  Service: { Name: string; Namespace: string; Partition: string };
  GatewayKind: 'ingress-gateway' | 'terminating-gateway';
  Port: number;
  Protocol: string;
  Hosts: string[] | null;
  CAFile: string;
  CertFile: string;
  KeyFile: string;
  SNI: string;
  FromWildcard: boolean;
  CreateIndex: number;
  ModifyIndex: number;
}

const name = (n: string) => ({ Name: n, Namespace: 'default', Partition: 'default' });

/** Plain services (not proxies or gateways): what a `*` listener exposes, as in Consul. */
function typicalServices(catalog: CatalogReader): string[] {
  return Object.keys(catalog.services().value).filter((s) =>
    catalog.serviceInstances(s).value.some((c) => c.Service.Kind === ''),
  );
}

/** What a terminating gateway's `*` links, as its Envoy is served (docs/gateways.md): plain services not in the mesh. */
function outsideTheMesh(catalog: CatalogReader): string[] {
  // One walk of every instance: the plain services, and those a proxy or a native instance puts in the mesh.
  const plain: string[] = [];
  const inMesh = new Set<string>();
  for (const n of Object.keys(catalog.services().value)) {
    let typical = false;
    for (const c of catalog.serviceInstances(n).value) {
      const destination = c.Service.Proxy?.DestinationServiceName;
      if (c.Service.Kind === 'connect-proxy' && typeof destination === 'string') inMesh.add(destination);
      if (c.Service.Kind === '') typical = true;
      if (c.Service.Kind === '' && c.Service.Connect?.Native === true) inMesh.add(n);
    }
    if (typical) plain.push(n);
  }
  return plain.filter((n) => !inMesh.has(n));
}

function expand(catalog: CatalogReader, entry: ConfigEntry): GatewayService[] {
  const out: GatewayService[] = [];
  for (const listener of (entry.Listeners as Listener[] | undefined) ?? []) {
    for (const svc of listener.Services ?? []) {
      const wildcard = svc.Name === '*';
      for (const service of wildcard ? typicalServices(catalog) : [svc.Name ?? '']) {
        out.push({
          Gateway: name(entry.Name),
          Service: name(service),
          GatewayKind: 'ingress-gateway',
          Port: listener.Port ?? 0,
          Protocol: listener.Protocol || 'tcp',
          Hosts: svc.Hosts && svc.Hosts.length > 0 ? svc.Hosts : null,
          CAFile: '',
          CertFile: '',
          KeyFile: '',
          SNI: '',
          FromWildcard: wildcard,
          CreateIndex: entry.CreateIndex,
          ModifyIndex: entry.ModifyIndex,
        });
      }
    }
  }
  return out;
}

/** A terminating gateway's linked services, as Consul lists them (no port, protocol or hosts; `*` expanded). */
function linked(catalog: CatalogReader, entry: ConfigEntry): GatewayService[] {
  const services = (entry['Services'] as Array<Record<string, unknown>> | undefined) ?? [];
  const named = new Set(services.map((svc) => String(svc['Name'] ?? '')));
  return services.flatMap((svc) => {
    const wildcard = svc['Name'] === '*';
    const names = wildcard
      ? outsideTheMesh(catalog).filter((n) => !named.has(n) && n !== entry.Name)
      : [String(svc['Name'] ?? '')];
    return names.map(
      (service): GatewayService => ({
        Gateway: name(entry.Name),
        Service: name(service),
        GatewayKind: 'terminating-gateway',
        Port: 0,
        Protocol: '',
        Hosts: null,
        CAFile: String(svc['CAFile'] ?? ''),
        CertFile: String(svc['CertFile'] ?? ''),
        KeyFile: String(svc['KeyFile'] ?? ''),
        SNI: String(svc['SNI'] ?? ''),
        FromWildcard: wildcard,
        CreateIndex: entry.CreateIndex,
        ModifyIndex: entry.ModifyIndex,
      }),
    );
  });
}

export function gatewayServices(catalog: CatalogReader, gateway: string): Indexed<GatewayService[]> {
  const entry = catalog.configEntry('ingress-gateway', gateway);
  if (!entry.value) {
    const terminating = catalog.configEntry('terminating-gateway', gateway);
    if (terminating.value) {
      const value = linked(catalog, terminating.value);
      // A `*` link changes with the service list too.
      const { wildcard } = terminatingLinks(terminating.value);
      return joined(value, wildcard ? [terminating, catalog.services()] : [terminating]);
    }
    return joined([], [entry, terminating]);
  }
  const value = expand(catalog, entry.value);
  // A `*` listener changes with the service list too.
  return joined(value, value.some((g) => g.FromWildcard) ? [entry, catalog.services()] : [entry]);
}

/** Instances of every ingress gateway whose config entry exposes `service` (by name or `*`). */
export function ingressInstances(catalog: CatalogReader, service: string): Indexed<CheckServiceNode[]> {
  const entries = catalog.configEntries('ingress-gateway');
  const parts: Indexed<unknown>[] = [entries];
  const out: CheckServiceNode[] = [];
  for (const entry of entries.value) {
    const listeners = (entry.Listeners as Listener[] | undefined) ?? [];
    const exposes = listeners.some((l) =>
      (l.Services ?? []).some((s) => s.Name === service || (s.Name === '*' && service !== entry.Name)),
    );
    if (!exposes) continue;
    const instances = catalog.serviceInstances(entry.Name);
    parts.push(instances);
    out.push(...instances.value.filter((c) => c.Service.Kind === 'ingress-gateway'));
  }
  return joined(out, parts);
}
