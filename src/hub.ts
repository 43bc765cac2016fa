// One core hub: its log, the catalog folded from it and everything beside it
// (src/assemble/sources.ts), served over HTTP and gRPC with the parts asked
// for — Subscribe, xDS, the operator tools. Built by the one assembler
// (src/assemble/index.ts), which also builds fan-out hubs (src/fanout/hub.ts).
import type * as grpc from '@grpc/grpc-js';
import type { FastifyInstance } from 'fastify';
import type pino from 'pino';
import type { AclResolver } from './acl/resolver';
import { assemble, type HubParts, type HubState } from './assemble/index';
import { openCoreSource, type PublisherOptions } from './assemble/sources';
import type { Catalog } from './catalog/catalog';
import type { Config } from './config';
import type { ConnectCa } from './connect/manager';
import type { Log } from './log/log';
import type { ViewKey, ViewStore } from './materializer/types';
import type { HubMetrics } from './metrics';
import type { Ops } from './ops/index';
import type { HubPublisher } from './subscribe/publisher';
import type { CatalogXdsProvider } from './xds/translate/catalog-provider';
import type { XdsServer } from './xds/transport/server';

export { bindGrpc, type HubParts, type HubState, shutdownGrpc } from './assemble/index';

export interface Hub {
  readonly config: Config;
  readonly log: Log;
  readonly catalog: Catalog;
  /** The built-in CA (docs/mesh.md). */
  readonly connect: ConnectCa;
  readonly metrics: HubMetrics;
  readonly publisher: HubPublisher;
  readonly views: ViewStore;
  /** Token secrets → authorizers (allows everything when ACLs are off). */
  readonly acl: AclResolver;
  /** The index a caught-up view of a key holds at least (read-your-writes for view reads). */
  viewTarget(key: ViewKey): bigint;
  readonly http: FastifyInstance;
  /** The shared gRPC server (Subscribe and xDS). Already bound and serving. */
  readonly grpc: grpc.Server;
  /** Actual ports (differ from config when 0 was asked). */
  readonly httpPort: number;
  readonly grpcPort: number;
  readonly httpUrl: string;
  /** The xDS server and the catalog provider behind it, when xDS was asked for. */
  readonly xds: XdsServer | undefined;
  readonly provider: CatalogXdsProvider | undefined;
  /** The operator tools, when asked for. */
  readonly ops: Ops | undefined;
  state(): HubState;
  close(): Promise<void>;
}

/** A hub whose parts are known from the options it was built with. */
export type HubWith<P extends HubParts> = Hub &
  (P extends { xds: true } ? { readonly xds: XdsServer; readonly provider: CatalogXdsProvider } : unknown) &
  (P extends { ops: true } ? { readonly ops: Ops } : unknown);

/** Everything `xdshub serve` runs on a core hub. */
export const ALL_PARTS = { subscribe: true, xds: true, ops: true } as const;

export interface HubOptions<P extends HubParts = HubParts> {
  /** What to serve besides the HTTP API; none by default (tests of the HTTP API alone). */
  parts?: P;
  /** How long gRPC streams get to finish before they are cancelled at shutdown. */
  grpcGraceMs?: number;
  /** The publisher's options (tests trip its lag bound). */
  publisher?: PublisherOptions;
}

/** No parts: the HTTP API alone. */
export type NoParts = Record<never, never>;

export async function createHub<const P extends HubParts = NoParts>(
  config: Config,
  logger: pino.Logger,
  options: HubOptions<P> = {},
): Promise<HubWith<P>> {
  const parts: HubParts = options.parts ?? {};
  const hub = await assemble(
    config,
    logger,
    (metrics, undo) => openCoreSource(config, logger, metrics, undo, options.publisher),
    {
      parts,
      ...(options.grpcGraceMs !== undefined ? { grpcGraceMs: options.grpcGraceMs } : {}),
    },
  );
  const { source } = hub;
  const out: Hub = {
    config: hub.config,
    log: source.log,
    catalog: source.catalog,
    connect: source.connect,
    metrics: hub.metrics,
    publisher: source.publisher,
    views: source.views,
    acl: source.acl,
    viewTarget: source.http.viewTarget,
    http: hub.http,
    grpc: hub.grpc,
    httpPort: hub.httpPort,
    grpcPort: hub.grpcPort,
    httpUrl: hub.httpUrl,
    xds: hub.xds?.xds,
    provider: hub.xds?.provider,
    ops: hub.ops,
    state: hub.state,
    close: hub.close,
  };
  return out as HubWith<P>;
}
