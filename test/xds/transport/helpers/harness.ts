// A real grpc-js server on port 0 with the xDS server on it, and clients for it.

import type { TestContext } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import pino from 'pino';
import { DEFAULTS } from '../../../../src/config';
import type { ResourceProvider } from '../../../../src/xds/transport/provider';
import {
  createXdsServer,
  type XdsConfig,
  type XdsServer,
  type XdsServerOptions,
} from '../../../../src/xds/transport/server';
import { type ClientOptions, ScriptedClient } from './client';
import { seed, TestProvider } from './fixtures';

export const ADS = '/envoy.service.discovery.v3.AggregatedDiscoveryService/StreamAggregatedResources';
export const DELTA_ADS = '/envoy.service.discovery.v3.AggregatedDiscoveryService/DeltaAggregatedResources';

export interface Hub {
  xds: XdsServer;
  port: number;
  clients: ScriptedClient[];
  sotw(path?: string): ScriptedClient;
  delta(path?: string): ScriptedClient;
  client(opts: Omit<ClientOptions, 'port'>): ScriptedClient;
  stop(): Promise<void>;
}

export async function startHub(
  provider: ResourceProvider,
  config: Partial<XdsConfig> = {},
  port = 0,
  options: Pick<XdsServerOptions, 'syncGate' | 'memoryTrim' | 'registry'> = {},
): Promise<Hub> {
  const xds = createXdsServer({
    ...options,
    provider,
    config: {
      resourceTtlMs: 0,
      heartbeatIntervalMs: 0,
      xdsDebounceMs: 2,
      xdsMaxDelayMs: 20,
      xdsMaxStreams: DEFAULTS.xdsMaxStreams,
      memoryTrim: DEFAULTS.memoryTrim,
      ...config,
    },
    logger: pino({ level: 'silent' }),
  });
  const server = new grpc.Server();
  xds.addTo(server);
  const bound = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`127.0.0.1:${port}`, grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  const hub: Hub = {
    xds,
    port: bound,
    clients: [],
    client(opts) {
      const c = new ScriptedClient({ ...opts, port: bound });
      hub.clients.push(c);
      return c;
    },
    sotw: (path = ADS) => hub.client({ path, kind: 'sotw' }),
    delta: (path = DELTA_ADS) => hub.client({ path, kind: 'delta' }),
    async stop() {
      for (const c of hub.clients) c.close();
      xds.close();
      await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
    },
  };
  return hub;
}

/** A hub over a provider holding the seed set (fixtures.ts), stopped when the test ends. */
export async function seededHub(
  t: TestContext,
  config: Partial<XdsConfig> = {},
): Promise<{ p: TestProvider; hub: Hub }> {
  const p = new TestProvider();
  seed(p);
  const hub = await startHub(p, config);
  t.after(() => hub.stop());
  return { p, hub };
}
