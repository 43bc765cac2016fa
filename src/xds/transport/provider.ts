// The seam between what the hub knows (translated catalog views) and the xDS
// transport (streams, ACK/NACK, ordering). The transport never looks inside a
// resource; the provider never looks at a stream.

/** Identity of an xDS client, read from the first request of a stream (X-STREAM-1). */
export interface XdsNode {
  id: string;
  cluster: string;
  clientFeatures: readonly string[];
  /** node.user_agent_name, for logs and the admin page. */
  userAgent: string;
  /**
   * How this client reaches the hub, set by the transport: over ADS, a
   * per-type gRPC stream (SotW or Delta), or REST polling. Resources that
   * point at other resources (a Cluster's EDS, a Listener's RDS) must name a
   * config source the client has; unset means ADS.
   */
  configSource?: ConfigSourceKind;
  /**
   * The caller's credential, passed through unread by the transport: gRPC
   * metadata `x-consul-token`, or the REST request's token. Providers that
   * authorize (src/acl/xds.ts) decide what it may see.
   */
  credential?: string;
}

export type ConfigSourceKind = 'ads' | 'grpc' | 'delta-grpc' | 'rest';

/** One Envoy resource, encoded once per content change and shared by every stream. */
export interface XdsResource {
  readonly name: string;
  /** v3 type URL, e.g. type.googleapis.com/envoy.config.cluster.v3.Cluster. */
  readonly typeUrl: string;
  /** Hash of `encoded`: equal content gives an equal version on every hub and across restarts. */
  readonly version: string;
  /** The serialized resource message (not wrapped in Any). */
  readonly encoded: Uint8Array;
}

/** The resources of one type that one node may see, and which of them a wildcard subscription covers. */
export interface ResourceSet {
  readonly byName: ReadonlyMap<string, XdsResource>;
  /** Names included in a wildcard (`*` or legacy empty) subscription; API listeners are not. */
  readonly wildcard: ReadonlySet<string>;
}

export interface ResourceChange {
  typeUrl: string;
  /** Names whose content changed, appeared or disappeared. */
  names: ReadonlySet<string>;
  /** Set when the change only concerns nodes whose cluster (else id) is this (ingress gateways). */
  nodeScope?: string;
  /** Set when the change only concerns the nodes with these ids (sidecars: node id = proxy service ID). */
  nodeIds?: ReadonlySet<string>;
}

export interface ResourceProvider {
  /** Current resources of a type for this node. Cheap: returns shared, already-encoded resources. */
  get(typeUrl: string, node: XdsNode): ResourceSet;
  /** Called after coalesced view changes, with what changed. Returns an unsubscribe function. */
  onChange(listener: (changes: readonly ResourceChange[]) => void): () => void;
}
