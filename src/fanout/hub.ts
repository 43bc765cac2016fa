// A fan-out hub (`xdshub serve --upstream host:8502 --upstream-http http://host:8500`,
// docs/fanout.md): the same pipeline as a core hub from the publisher on —
// views, xDS, Subscribe, view reads over HTTP — but its publisher is a relay of
// the upstream's Subscribe streams instead of a catalog folded from a log. It
// keeps no log, runs no checks and holds no CA or ACL tables; HTTP requests
// its views cannot answer are forwarded to the upstream.
//
//   upstream Subscribe ──gRPC──▶ relays (src/fanout/relay.ts) ──▶ Subscribe clients of this hub
//                                   │ in-process
//                                   ▼
//                               view store ──▶ xDS (Envoy, gRPC xds:///) and HTTP view reads
import * as grpc from '@grpc/grpc-js';
import type { FastifyInstance } from 'fastify';
import type pino from 'pino';
import type { Catalog } from '../catalog/catalog';
import type { Config } from '../config';
import { createAclResolver } from '../acl/resolver';
import { HubError } from '../errors';
import { buildHttpApp } from '../http/app';
import { createViewStore, inProcessSource } from '../materializer/index';
import { requestForKey } from '../materializer/keys';
import { grpcSource } from '../materializer/sources/grpc';
import type { ViewKey, ViewStore } from '../materializer/types';
import { createMetrics } from '../metrics';
import { connectionStreamCounter, connectionStreamOptions } from '../stream-limits';
import { addSubscribeService } from '../subscribe/grpc';
import { grpcServerCredentials, httpsOptions } from '../tls';
import { createCatalogXdsProvider, type CatalogXdsProvider } from '../xds/translate/catalog-provider';
import { withClientConfigSources } from '../xds/translate/config-sources';
import { XDS_ROUTES } from '../http/route-policy';
import { registerXdsHttp } from '../xds/transport/http';
import { createXdsServer, type XdsServer } from '../xds/transport/server';
import { bindGrpc, shutdownGrpc } from '../hub';
import { installForwarding } from './forward';
import { createRelayPublisher, type RelayPublisher } from './relay';
import { swappableViews } from './views';

export interface FanoutHub {
  readonly config: Config;
  readonly relay: RelayPublisher;
  readonly views: ViewStore;
  readonly xds: XdsServer;
  readonly provider: CatalogXdsProvider;
  readonly http: FastifyInstance;
  readonly grpc: grpc.Server;
  readonly httpPort: number;
  readonly grpcPort: number;
  readonly httpUrl: string;
  close(): Promise<void>;
}

/**
 * What the shared HTTP app asks of a catalog, on a hub that has none: the index
 * (the newest any relay holds) and no-op listeners. The forwarding hook sends
 * every route that reads the catalog upstream before it runs, so anything else
 * asked here is a bug, reported as such.
 */
function relayIndexCatalog(lastIndex: () => bigint): Catalog {
  const known: Partial<Catalog> = {
    lastIndex,
    onApplied: () => () => undefined,
    onReset: () => () => undefined,
  };
  return new Proxy(known as Catalog, {
    get(target, name) {
      if (name in target) return target[name as keyof Catalog];
      return () => {
        throw new HubError('INTERNAL', `fan-out hub: catalog.${String(name)} is not available here (this request should have been forwarded upstream)`);
      };
    },
  });
}

/**
 * The upstream channel's own reconnect back-off. grpc-js's default (1 s, growing 1.6× to
 * 120 s) left a fan-out hub up to ~10 s behind a core hub that was back: a call fails at
 * once while the channel waits out its back-off, whatever the relay's retries. Capped at
 * 500 ms (±20 % jitter): one refused connect twice a second while the core is down.
 */
export const UPSTREAM_RECONNECT = {
  'grpc.initial_reconnect_backoff_ms': 100,
  'grpc.max_reconnect_backoff_ms': 500,
} as const;

export async function createFanoutHub(config: Config, logger: pino.Logger): Promise<FanoutHub> {
  if (config.upstream === undefined || config.upstreamHttp === undefined) throw new HubError('INVALID_ARGUMENT', 'upstream: a fan-out hub needs --upstream and --upstream-http');
  const metrics = createMetrics();
  const source = grpcSource({
    address: config.upstream,
    channelOptions: { 'grpc.max_receive_message_length': config.limits.grpcMaxMessageBytes, ...UPSTREAM_RECONNECT },
  });
  const relay = createRelayPublisher({ source, logger: logger.child({ module: 'fanout' }) });
  // Replaced as a whole when the upstream turns out to hold another log (src/fanout/views.ts).
  const views = swappableViews(() => createViewStore({ source: inProcessSource(relay), logger }));
  const offNewLog = relay.onNewLog(() => {
    logger.warn({ upstream: config.upstream }, 'the upstream holds another log (its index went backwards): views rebuilt from it');
    views.swap();
  });
  const lastIndex = () => relay.lastIndex();
  const viewTarget = (key: ViewKey) => relay.lastChangeIndex(requestForKey(key, ''));
  metrics.setIndexSource(lastIndex);
  const catalog = relayIndexCatalog(lastIndex);
  const acl = createAclResolver(catalog, { enabled: false, defaultPolicy: 'allow', datacenter: config.datacenter });

  const server = new grpc.Server({
    'grpc.keepalive_permit_without_calls': 1,
    'grpc.max_receive_message_length': config.limits.grpcMaxMessageBytes,
    ...connectionStreamOptions(config.limits.grpcMaxStreamsPerConnection),
  });
  const streams = connectionStreamCounter(config.limits.grpcMaxStreamsPerConnection);
  addSubscribeService(server, { publisher: relay, logger, datacenter: config.datacenter, acl, limits: config.limits, connections: streams });
  const provider = createCatalogXdsProvider({ views, logger, datacenter: config.datacenter, defaultIntention: config.defaultIntention });
  const xds = createXdsServer({
    provider: withClientConfigSources(provider),
    config,
    logger,
    registry: metrics.registry,
    connections: streams,
    maxResourceNames: config.limits.xdsMaxResourceNames,
  });
  xds.addTo(server);
  const host = config.bind.includes(':') ? `[${config.bind}]` : config.bind;
  let grpcPort: number;
  let http: FastifyInstance;
  const effective: Config = { ...config };
  try {
    grpcPort = await bindGrpc(server, `${host}:${config.grpcPort}`, grpcServerCredentials(config));
    effective.grpcPort = grpcPort;
    const https = httpsOptions(config);
    http = buildHttpApp({ catalog, config: effective, logger, metrics, views, viewTarget, acl: { resolver: acl, certToken: false }, ...(https ? { https } : {}) });
    installForwarding(http, { upstreamHttp: config.upstreamHttp, relay });
    registerXdsHttp(http, { xds, routes: XDS_ROUTES });
    await http.listen({ host: config.bind, port: config.httpPort });
  } catch (err) {
    server.forceShutdown();
    xds.close();
    provider.close();
    views.close();
    relay.close();
    source.close();
    throw err;
  }
  const address = http.server.address();
  const httpPort = typeof address === 'object' && address ? address.port : config.httpPort;
  effective.httpPort = httpPort;
  const urlHost = config.bind === '0.0.0.0' || config.bind === '::' ? '127.0.0.1' : host;

  let closing: Promise<void> | undefined;
  async function close(): Promise<void> {
    const httpClosed = http.close();
    const grpcClosed = shutdownGrpc(server, 2_000);
    offNewLog();
    xds.close();
    provider.close();
    relay.close();
    await Promise.all([httpClosed, grpcClosed]);
    views.close();
    acl.close();
    source.close();
    logger.info('fan-out hub stopped');
  }

  return {
    config: effective,
    relay,
    views,
    xds,
    provider,
    http,
    grpc: server,
    httpPort,
    grpcPort,
    httpUrl: `${config.tlsCert ? 'https' : 'http'}://${urlHost}:${httpPort}`,
    close: () => (closing ??= close()),
  };
}
