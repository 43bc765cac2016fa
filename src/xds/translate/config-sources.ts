// Config sources that lead where the client is. A Cluster names where its
// endpoints come from (eds_config) and an HTTP connection manager where its
// routes come from (rds.config_source). The builders write `ads`, which is
// right for ADS clients (Envoy on ADS, proxyless gRPC). An Envoy on per-type
// gRPC streams or REST polling rejects `ads` ("ADS must be configured to
// support an ADS config source"), and Envoy does not implement `self` there,
// so those clients get a copy whose config sources name the hub's cluster
// with the same API type they use:
//
//   per-type SotW gRPC → api_config_source {api_type: GRPC,
//                          grpc_services: [{envoy_grpc: {cluster_name: "xdshub", retry_policy: <1 s back-off>}}]}
//   per-type Delta     → api_config_source {api_type: DELTA_GRPC, grpc_services: [...same]}
//   REST polling       → api_config_source {api_type: REST, cluster_names: ["xdshub-http"], refresh_delay: 1s}
//
// "xdshub" and "xdshub-http" are the static clusters `xdshub envoy bootstrap`
// writes (docs/envoy.md). Each copy is encoded once per content change and
// source kind and shared by every client of that kind (invariant 5, docs/architecture.md).
import type * as protobuf from 'protobufjs';
import { lookupType } from '../transport/envoy-proto';
import type { ConfigSourceKind, ResourceProvider, ResourceSet, XdsNode, XdsResource } from '../transport/provider';
import { TypeUrl } from '../transport/type-urls';
import { versionOf } from './encode';
import { Extension, ExtensionType } from './extension-types';

export const HUB_GRPC_CLUSTER = 'xdshub';
export const HUB_HTTP_CLUSTER = 'xdshub-http';
const REST_REFRESH = { seconds: 1, nanos: 0 };
/**
 * How fast a client reconnects to the hub: 250 ms, doubling to at most 1 s
 * between attempts (Envoy's own default goes to 30 s), so every stream is back
 * soon after a hub restart (docs/envoy.md). The bootstraps the hub prints
 * (src/cli/envoy-bootstrap.ts) and the EDS/RDS config sources it serves to
 * per-type clients both carry it.
 */
export const HUB_RECONNECT_BACKOFF_MS = { base: 250, max: 1000 } as const;

const duration = (ms: number) => ({ seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1_000_000 });
const RECONNECT_POLICY = {
  retryBackOff: {
    baseInterval: duration(HUB_RECONNECT_BACKOFF_MS.base),
    maxInterval: duration(HUB_RECONNECT_BACKOFF_MS.max),
  },
};

/** The ConfigSource (protobufjs plain form) a client of this kind can follow. */
function configSourceFor(kind: Exclude<ConfigSourceKind, 'ads'>): Record<string, unknown> {
  const api =
    kind === 'rest'
      ? { apiType: 'REST', transportApiVersion: 'V3', clusterNames: [HUB_HTTP_CLUSTER], refreshDelay: REST_REFRESH }
      : {
          apiType: kind === 'grpc' ? 'GRPC' : 'DELTA_GRPC',
          transportApiVersion: 'V3',
          grpcServices: [{ envoyGrpc: { clusterName: HUB_GRPC_CLUSTER, retryPolicy: RECONNECT_POLICY } }],
          setNodeOnFirstMessageOnly: true,
        };
  return { apiConfigSource: api, resourceApiVersion: 'V3' };
}

// biome-ignore lint/suspicious/noExplicitAny: protobufjs toObject() output of any Envoy message, read by the field names its proto declares
type Msg = Record<string, any>;

function reencodeHcm(any: Msg | null | undefined, source: Msg): boolean {
  if (!any || (any['typeUrl'] ?? any['type_url']) !== ExtensionType.HttpConnectionManager) return false;
  const hcmType = lookupType(Extension.HttpConnectionManager);
  const hcm = hcmType.toObject(hcmType.decode(any['value'] as Uint8Array)) as Msg;
  if (!hcm['rds']?.['configSource']?.['ads']) return false;
  hcm['rds']['configSource'] = source;
  any['value'] = hcmType.encode(hcmType.fromObject(hcm)).finish();
  return true;
}

/** The resource with every `ads` config source replaced; the same object when it has none. */
function rewrite(res: XdsResource, kind: Exclude<ConfigSourceKind, 'ads'>): XdsResource {
  const source = configSourceFor(kind);
  let type: protobuf.Type;
  let changed = false;
  let m: Msg;
  if (res.typeUrl === TypeUrl.Cluster) {
    type = lookupType('envoy.config.cluster.v3.Cluster');
    m = type.toObject(type.decode(res.encoded)) as Msg;
    if (m['edsClusterConfig']?.['edsConfig']?.['ads']) {
      m['edsClusterConfig']['edsConfig'] = source;
      changed = true;
    }
  } else {
    type = lookupType('envoy.config.listener.v3.Listener');
    m = type.toObject(type.decode(res.encoded)) as Msg;
    for (const chain of m['filterChains'] ?? [])
      for (const f of chain['filters'] ?? []) changed = reencodeHcm(f['typedConfig'], source) || changed;
    changed = reencodeHcm(m['apiListener']?.['apiListener'], source) || changed;
  }
  if (!changed) return res;
  const encoded = type.encode(type.fromObject(m)).finish();
  return Object.freeze({ name: res.name, typeUrl: res.typeUrl, version: versionOf(encoded), encoded });
}

/**
 * Wraps a provider: ADS clients (and clients that do not say) get its sets
 * unchanged; per-type and REST clients get Clusters and Listeners whose
 * config sources they can follow.
 */
export function withClientConfigSources(provider: ResourceProvider): ResourceProvider {
  // Per source resource (by identity): its copy per kind. Weak, so replaced resources are collected.
  const copies = new WeakMap<XdsResource, Map<ConfigSourceKind, XdsResource>>();
  const sets = new WeakMap<ResourceSet, Map<ConfigSourceKind, ResourceSet>>();
  const copyOf = (res: XdsResource, kind: Exclude<ConfigSourceKind, 'ads'>): XdsResource => {
    let byKind = copies.get(res);
    if (!byKind) copies.set(res, (byKind = new Map()));
    let out = byKind.get(kind);
    if (!out) byKind.set(kind, (out = rewrite(res, kind)));
    return out;
  };
  return {
    get(typeUrl: string, node: XdsNode): ResourceSet {
      const base = provider.get(typeUrl, node);
      const kind = node.configSource ?? 'ads';
      if (kind === 'ads' || (typeUrl !== TypeUrl.Cluster && typeUrl !== TypeUrl.Listener)) return base;
      let byKind = sets.get(base);
      if (!byKind) sets.set(base, (byKind = new Map()));
      let set = byKind.get(kind);
      if (!set) {
        const byName = new Map([...base.byName].map(([n, r]) => [n, copyOf(r, kind)]));
        byKind.set(kind, (set = Object.freeze({ byName, wildcard: base.wildcard })));
      }
      return set;
    },
    onChange: (listener) => provider.onChange(listener),
  };
}
