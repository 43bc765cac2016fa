// A fan-out hub (`xdshub serve --upstream host:8502 --upstream-http http://host:8500`,
// docs/fanout.md): the same pipeline as a core hub from the publisher on —
// views, xDS, Subscribe, view reads over HTTP — but its source is a relay of
// the upstream's Subscribe streams instead of a catalog folded from a log
// (src/assemble/sources.ts). It keeps no log, runs no checks and holds no CA or
// ACL tables; HTTP requests its views cannot answer are forwarded upstream.
//
//   upstream Subscribe ──gRPC──▶ relays (src/fanout/relay.ts) ──▶ Subscribe clients of this hub
//                                   │ in-process
//                                   ▼
//                               view store ──▶ xDS (Envoy, gRPC xds:///) and HTTP view reads
import type * as grpc from '@grpc/grpc-js';
import type { FastifyInstance } from 'fastify';
import type pino from 'pino';
import { assemble } from '../assemble/index';
import { openRelaySource } from '../assemble/sources';
import type { Config } from '../config';
import type { ViewStore } from '../materializer/types';
import type { CatalogXdsProvider } from '../xds/translate/catalog-provider';
import type { XdsServer } from '../xds/transport/server';
import type { RelayPublisher } from './relay';

export { UPSTREAM_RECONNECT } from '../assemble/sources';

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

export async function createFanoutHub(config: Config, logger: pino.Logger): Promise<FanoutHub> {
  const hub = await assemble(config, logger, (metrics, undo) => openRelaySource(config, logger, metrics, undo), {
    parts: { subscribe: true, xds: true },
  });
  const xds = hub.xds!;
  return {
    config: hub.config,
    relay: hub.source.relay,
    views: hub.source.views,
    xds: xds.xds,
    provider: xds.provider,
    http: hub.http,
    grpc: hub.grpc,
    httpPort: hub.httpPort,
    grpcPort: hub.grpcPort,
    httpUrl: hub.httpUrl,
    close: hub.close,
  };
}
