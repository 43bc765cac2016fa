// gRPC service definitions for every xDS service the hub serves, v3 and legacy
// v2. Messages pass through as raw bytes: requests are decoded by the stream
// (so a bad one ends with a clear INVALID_ARGUMENT), responses are framed from
// shared, pre-encoded bodies (see wire.ts).
import type { MethodDefinition, ServiceDefinition } from '@grpc/grpc-js';
import { RESOURCE_TYPES } from './resource-types';
import type { Transport } from './stream';
import { type ApiVersion, serializeResponse, type XdsResponse } from './wire';

export type MethodKind = 'sotw' | 'delta' | 'fetch';

export interface XdsMethod {
  service: string;
  name: string;
  kind: MethodKind;
  transport: Transport;
  api: ApiVersion;
}

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
  ...RESOURCE_TYPES.flatMap(({ services, short: transport }) =>
    (['v3', 'v2'] as const).flatMap((api): XdsMethod[] => {
      const service = services[api];
      if (service === undefined) return [];
      return [
        { service, name: `Stream${services.noun}`, kind: 'sotw', transport, api },
        { service, name: `Delta${services.noun}`, kind: 'delta', transport, api },
        { service, name: `Fetch${services.noun}`, kind: 'fetch', transport, api },
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
