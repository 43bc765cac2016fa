// Test helpers: catalog fixtures, decoding produced resources back with
// protobufjs, and the validation a real gRPC client (grpc-js-xds, the same code
// that NACKs in production) applies to each resource.
import type { CheckServiceNode, ConfigEntry, HealthStatus } from '../../../src/catalog/types';
import { messageNameOf } from '../../../src/xds/translate/encode';
import { lookupType } from '../../../src/xds/transport/envoy-proto';
import type { XdsResource } from '../../../src/xds/transport/provider';

/** Decodes a resource to proto3-JSON-like plain data (lowerCamel keys, Any expanded with @type). */
export function decode(resource: XdsResource): any {
  const type = lookupType(messageNameOf(resource.typeUrl));
  return type.toObject(type.decode(resource.encoded), { json: true, enums: String, longs: Number });
}

let seq = 0;
export function instance(opts: {
  node?: string;
  id?: string;
  service?: string;
  address?: string;
  nodeAddress?: string;
  port?: number;
  statuses?: HealthStatus[];
  weights?: { Passing: number; Warning: number };
  datacenter?: string;
  zone?: string;
  nodeMetaZone?: string;
}): CheckServiceNode {
  const node = opts.node ?? `node-${++seq}`;
  const service = opts.service ?? 'web';
  const id = opts.id ?? `${service}-${seq}`;
  return {
    Node: {
      ID: '',
      Node: node,
      Address: opts.nodeAddress ?? '10.0.0.1',
      Datacenter: opts.datacenter ?? 'dc1',
      TaggedAddresses: {},
      Meta: opts.nodeMetaZone ? { zone: opts.nodeMetaZone } : {},
      ...(opts.zone ? { Locality: { Region: '', Zone: opts.zone } } : {}),
      CreateIndex: 1,
      ModifyIndex: 1,
    },
    Service: {
      Kind: '',
      ID: id,
      Service: service,
      Tags: [],
      Address: opts.address ?? '',
      TaggedAddresses: {},
      Meta: {},
      Port: opts.port ?? 8080,
      Weights: opts.weights ?? { Passing: 1, Warning: 1 },
      EnableTagOverride: false,
      CreateIndex: 1,
      ModifyIndex: 1,
    },
    Checks: (opts.statuses ?? ['passing']).map((Status, i) => ({
      Node: node,
      CheckID: `check-${i}`,
      Name: `check ${i}`,
      Status,
      Notes: '',
      Output: '',
      ServiceID: id,
      ServiceName: service,
      ServiceTags: [],
      Type: 'ttl',
      Interval: '',
      Timeout: '',
      Definition: {},
      CreateIndex: 1,
      ModifyIndex: 1,
    })),
  };
}

export function entry(kind: ConfigEntry['Kind'], name: string, fields: Record<string, unknown> = {}): ConfigEntry {
  return { Kind: kind, Name: name, CreateIndex: 1, ModifyIndex: 1, ...fields };
}

// grpc-js-xds's resource types validate exactly as the client does before it ACKs or NACKs.
const xds = require('@grpc/grpc-js-xds');
xds.register();
const TYPES: Record<string, { get(): { decode(ctx: unknown, any: unknown): { name: string; error?: string } } }> = {
  Cluster: require('@grpc/grpc-js-xds/build/src/xds-resource-type/cluster-resource-type').ClusterResourceType,
  ClusterLoadAssignment: require('@grpc/grpc-js-xds/build/src/xds-resource-type/endpoint-resource-type')
    .EndpointResourceType,
  Listener: require('@grpc/grpc-js-xds/build/src/xds-resource-type/listener-resource-type').ListenerResourceType,
  RouteConfiguration: require('@grpc/grpc-js-xds/build/src/xds-resource-type/route-config-resource-type')
    .RouteConfigurationResourceType,
};
const CONTEXT = { bootstrap: { certificateProviders: {}, node: { id: 'test' } }, server: {} };

/** The error grpc-js-xds would NACK this resource with, or undefined when it accepts it. */
export function grpcJsError(resource: XdsResource): string | undefined {
  const short = messageNameOf(resource.typeUrl).split('.').pop()!;
  const result = TYPES[short]!.get().decode(CONTEXT, {
    type_url: resource.typeUrl,
    value: Buffer.from(resource.encoded),
  });
  return result.error;
}

/** C-core 1.51 rules not covered by grpc-js: weighted_clusters sum to total_weight (default 100), a non-empty http filter list. */
export function cCoreError(resource: XdsResource): string | undefined {
  const msg = decode(resource);
  if (resource.typeUrl.endsWith('RouteConfiguration')) {
    for (const vh of msg.virtualHosts ?? []) {
      for (const r of vh.routes ?? []) {
        const wc = r.route?.weightedClusters;
        if (!wc) continue;
        const sum = wc.clusters.reduce((s: number, c: any) => s + (c.weight?.value ?? 0), 0);
        if (sum !== (wc.totalWeight?.value ?? 100))
          return `weighted_clusters sum ${sum} != ${wc.totalWeight?.value ?? 100}`;
      }
    }
  }
  if (resource.typeUrl.endsWith('Listener') && msg.apiListener) {
    if ((msg.apiListener.apiListener.httpFilters ?? []).length === 0) return 'empty http_filters';
  }
  return undefined;
}
