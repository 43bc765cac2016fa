// The real xDS server (createXdsServer: pipeline, pacing, step memo) with no
// gRPC: its stream handlers taken from a fake grpc.Server, for tests and
// benches that drive many streams through fake calls in one process.
import type { Server, ServerDuplexStream, UntypedServiceImplementation } from '@grpc/grpc-js';
import pino from 'pino';
import { createXdsServer, type XdsServer, type XdsServerOptions } from '../../../../src/xds/transport/server';
import type { XdsResponse } from '../../../../src/xds/transport/wire';

/** No TTL, the default push window, every stream admitted, no trimming: what such a test wants unless it says. */
export const QUIET_XDS_CONFIG: XdsServerOptions['config'] = {
  resourceTtlMs: 0,
  heartbeatIntervalMs: 0,
  xdsDebounceMs: 50,
  xdsMaxDelayMs: 1000,
  xdsMaxStreams: 0,
  memoryTrim: false,
};

export type StreamHandler = (call: ServerDuplexStream<Buffer, XdsResponse>) => void;

/** A server over `options` (config QUIET_XDS_CONFIG, a silent logger unless given) and its ADS handlers. */
export function inProcessXds(options: Partial<XdsServerOptions> & Pick<XdsServerOptions, 'provider'>): {
  xds: XdsServer;
  deltaAds: StreamHandler;
  sotwAds: StreamHandler;
} {
  const xds = createXdsServer({ config: QUIET_XDS_CONFIG, logger: pino({ level: 'silent' }), ...options });
  const impls: UntypedServiceImplementation[] = [];
  xds.addTo({ addService: (_d: unknown, impl: UntypedServiceImplementation) => impls.push(impl) } as unknown as Server);
  const handler = (name: string) => impls.find((i) => i[name])![name] as StreamHandler;
  return { xds, deltaAds: handler('DeltaAggregatedResources'), sotwAds: handler('StreamAggregatedResources') };
}
