// gRPC service definitions for every xDS service the hub serves, v3 and legacy
// v2. Messages pass through as raw bytes: requests are decoded by the stream
// (so a bad one ends with a clear INVALID_ARGUMENT), responses are framed from
// shared, pre-encoded bodies (see wire.ts).
import type { MethodDefinition, ServiceDefinition } from '@grpc/grpc-js';
import { serializeResponse, type ApiVersion, type XdsResponse } from './wire';
import type { Transport } from './stream';

export type MethodKind = 'sotw' | 'delta' | 'fetch';

export interface XdsMethod {
  service: string;
  name: string;
  kind: MethodKind;
  transport: Transport;
  api: ApiVersion;
}

/** Per-type services; SDS has no legacy v2 service here (v2 secrets go over v2 ADS). */
const PER_TYPE: readonly { v3: string; v2?: string; noun: string; transport: Transport }[] = [
  { v3: 'envoy.service.cluster.v3.ClusterDiscoveryService', v2: 'envoy.api.v2.ClusterDiscoveryService', noun: 'Clusters', transport: 'CDS' },
  { v3: 'envoy.service.endpoint.v3.EndpointDiscoveryService', v2: 'envoy.api.v2.EndpointDiscoveryService', noun: 'Endpoints', transport: 'EDS' },
  { v3: 'envoy.service.listener.v3.ListenerDiscoveryService', v2: 'envoy.api.v2.ListenerDiscoveryService', noun: 'Listeners', transport: 'LDS' },
  { v3: 'envoy.service.route.v3.RouteDiscoveryService', v2: 'envoy.api.v2.RouteDiscoveryService', noun: 'Routes', transport: 'RDS' },
  { v3: 'envoy.service.secret.v3.SecretDiscoveryService', noun: 'Secrets', transport: 'SDS' },
];

const ADS: readonly { service: string; api: ApiVersion }[] = [
  { service: 'envoy.service.discovery.v3.AggregatedDiscoveryService', api: 'v3' },
  { service: 'envoy.api.v2.AggregatedDiscoveryService', api: 'v2' }, // the v2 ADS service in envoy.api.v2
  { service: 'envoy.service.discovery.v2.AggregatedDiscoveryService', api: 'v2' }, // Envoy 1.7–1.16
];

export const XDS_METHODS: readonly XdsMethod[] = [
  ...ADS.flatMap(({ service, api }): XdsMethod[] => [
    { service, name: 'StreamAggregatedResources', kind: 'sotw', transport: 'ads', api },
    { service, name: 'DeltaAggregatedResources', kind: 'delta', transport: 'ads', api },
  ]),
  ...PER_TYPE.flatMap((t) =>
    (['v3', 'v2'] as const).flatMap((api): XdsMethod[] => {
      const service = t[api];
      if (service === undefined) return [];
      return [
        { service, name: `Stream${t.noun}`, kind: 'sotw', transport: t.transport, api },
        { service, name: `Delta${t.noun}`, kind: 'delta', transport: t.transport, api },
        { service, name: `Fetch${t.noun}`, kind: 'fetch', transport: t.transport, api },
      ];
    }),
  ),
];

const raw = (b: Buffer): Buffer => b;

function definition(m: XdsMethod): MethodDefinition<Buffer, XdsResponse> {
  const streaming = m.kind !== 'fetch';
  return {
    path: `/${m.service}/${m.name}`,
    requestStream: streaming,
    responseStream: streaming,
    requestSerialize: raw,
    requestDeserialize: raw,
    responseSerialize: serializeResponse,
    responseDeserialize: raw,
  };
}

/** service name → its definition and the methods in it. */
export function serviceDefinitions(): Map<string, { definition: ServiceDefinition; methods: XdsMethod[] }> {
  const out = new Map<string, { definition: ServiceDefinition; methods: XdsMethod[] }>();
  for (const m of XDS_METHODS) {
    let s = out.get(m.service);
    if (!s) out.set(m.service, (s = { definition: {}, methods: [] }));
    (s.definition as Record<string, MethodDefinition<Buffer, XdsResponse>>)[m.name] = definition(m);
    s.methods.push(m);
  }
  return out;
}
