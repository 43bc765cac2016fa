// What the admin endpoints show: per stream state, and a node's resources as
// proto3 JSON.

import { typeOfUrl } from './envoy-proto';
import { bytesToJson } from './proto-json';
import type { ResourceProvider, XdsNode, XdsResource } from './provider';
import { RESOURCE_TYPES, Secrets } from './resource-types';
import { coveredNames } from './rules/subscription';
import type { XdsStream } from './stream';

export interface TypeInfo {
  type: string;
  typeUrl: string;
  wildcard: boolean;
  names: string[];
  /** SotW: the set version last ACKed. */
  ackedVersion: string;
  /** name → version the client holds (moved on ACK only). */
  acked: Record<string, string>;
  pendingNonce: string | null;
  lastNack: { message: string; code: number; nonce: string; at: string; versionInfo: string } | null;
  /** When the last response carrying resources of this type was written to the stream (epoch ms, with a fraction). */
  lastPushAtMs: number | null;
}

export interface ClientInfo {
  stream: number;
  node: { id: string; cluster: string; userAgent: string } | null;
  clientFeatures: readonly string[];
  transport: string;
  variant: string;
  api: string;
  connectedAt: string;
  types: TypeInfo[];
}

export function clientInfo(s: XdsStream): ClientInfo {
  return {
    stream: s.id,
    node: s.node ? { id: s.node.id, cluster: s.node.cluster, userAgent: s.node.userAgent } : null,
    clientFeatures: s.node?.clientFeatures ?? [],
    transport: s.transport,
    variant: s.variant,
    api: s.api,
    connectedAt: s.openedAt.toISOString(),
    types: RESOURCE_TYPES.flatMap((t): TypeInfo[] => {
      const st = s.types.get(t.typeUrl);
      if (!st) return [];
      return [
        {
          type: t.short,
          typeUrl: st.wireTypeUrl,
          wildcard: st.sub.wildcard,
          names: [...st.sub.names].sort(),
          ackedVersion: st.ackedVersion,
          acked: Object.fromEntries(st.acked),
          pendingNonce: st.pending?.nonce ?? null,
          lastNack: st.lastNack ? { ...st.lastNack, at: new Date(st.lastNack.at).toISOString() } : null,
          lastPushAtMs: s.lastPushAt.get(t.typeUrl) ?? null,
        },
      ];
    }),
  };
}

/** A resource as canonical proto3 JSON, with `@type` as an Any would carry it (the form Envoy's /config_dump prints). */
function resourceJson(res: XdsResource): Record<string, unknown> {
  return { '@type': res.typeUrl, ...(bytesToJson(typeOfUrl(res.typeUrl), res.encoded) as Record<string, unknown>) };
}

export interface NodeConfig {
  node: { id: string; cluster: string };
  connected: boolean;
  /** Per type (clusters, endpoints, listeners, routes): name → { version, resource }. */
  resources: Record<string, Record<string, { version: string; resource: Record<string, unknown> }>>;
}

/**
 * What a node gets now: for a connected node, the names its streams cover; for
 * an offline one, everything the provider would offer it.
 */
export function nodeConfig(provider: ResourceProvider, node: XdsNode, streams: readonly XdsStream[]): NodeConfig {
  const resources: NodeConfig['resources'] = {};
  for (const t of RESOURCE_TYPES) {
    const set = provider.get(t.typeUrl, node);
    let names: Iterable<string> = set.byName.keys();
    if (streams.length > 0) {
      const covered = new Set<string>();
      for (const s of streams) {
        const st = s.types.get(t.typeUrl);
        if (st) for (const n of coveredNames(st.sub, set)) covered.add(n);
      }
      names = covered;
    }
    const out: Record<string, { version: string; resource: Record<string, unknown> }> = {};
    for (const n of [...names].sort()) {
      const res = set.byName.get(n);
      // Secrets carry private keys: the admin view names them and their version, never their content.
      if (res)
        out[n] = {
          version: res.version,
          resource: t === Secrets ? { '@type': res.typeUrl, name: res.name } : resourceJson(res),
        };
    }
    resources[t.rest] = out;
  }
  return { node: { id: node.id, cluster: node.cluster }, connected: streams.length > 0, resources };
}
