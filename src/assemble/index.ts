// The one assembler (docs/architecture.md, "Assembly"): every hub — the core
// hub `xdshub serve` runs, a fan-out hub, each test's hub — is built here, in
// one order, from a source and the features it was asked for:
//
//   source (log → catalog → publisher → views, or relays → views)
//   → features (operator tools, ACLs on xDS, forwarding), through the extension points
//   → gRPC server: Subscribe, xDS (provider layers, callbacks), bound
//   → HTTP app: the Consul API, write hook, feature routes, xDS routes; listening
//
// close() runs it backwards: stop accepting (HTTP answers 503, gRPC refuses new
// calls), end the streams, close the features, end Subscribe, let in-flight
// writes finish, then close the source (catalog, log).

import type { Server as TlsServer } from 'node:tls';
import * as grpc from '@grpc/grpc-js';
import type { FastifyInstance } from 'fastify';
import type pino from 'pino';
import type { Config } from '../config';
import { catalogConnectSource } from '../connect/source';
import { buildHttpApp } from '../http/app';
import { XDS_ROUTES } from '../http/route-policy';
import { createMetrics, type HubMetrics } from '../metrics';
import { createOps, type Ops } from '../ops/index';
import { connectionStreamCounter, connectionStreamOptions } from '../stream-limits';
import { addSubscribeService } from '../subscribe/grpc';
import { grpcServerCredentials, httpsOptions, watchHttpsFiles } from '../tls';
import { registerXdsHttp } from '../xds/transport/http';
import { type HubFeature, opsFeature, xdsAclFeature } from './features';
import type { CoreSource, HubSource } from './sources';
import { Undo } from './undo';
import { buildXds, type XdsPart } from './xds';

export type HubState = 'STARTING' | 'RUNNING' | 'STOPPING' | 'STOPPED';

/** What a hub serves besides the HTTP API. */
export interface HubParts {
  /** Consul's Subscribe on the gRPC port. */
  subscribe?: boolean;
  /** xDS on the gRPC port (and REST-JSON xDS and its admin views on HTTP). */
  xds?: boolean;
  /** The operator tools (docs/operator-tools.md); needs xds and a core source. */
  ops?: boolean;
}

export interface AssembleOptions {
  parts: HubParts;
  /** How long gRPC streams get to finish before they are cancelled at shutdown. */
  grpcGraceMs?: number;
}

export interface Assembled<S extends HubSource> {
  readonly config: Config;
  readonly source: S;
  readonly metrics: HubMetrics;
  readonly xds: XdsPart | undefined;
  readonly ops: Ops | undefined;
  readonly http: FastifyInstance;
  readonly grpc: grpc.Server;
  readonly httpPort: number;
  readonly grpcPort: number;
  readonly httpUrl: string;
  state(): HubState;
  close(): Promise<void>;
}

export function bindGrpc(server: grpc.Server, address: string, credentials: grpc.ServerCredentials): Promise<number> {
  return new Promise((resolve, reject) =>
    server.bindAsync(address, credentials, (err, port) => (err ? reject(err) : resolve(port))),
  );
}

export function shutdownGrpc(server: grpc.Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const force = setTimeout(() => server.forceShutdown(), graceMs);
    server.tryShutdown(() => {
      clearTimeout(force);
      resolve();
    });
  });
}

function hostForUrl(bind: string): string {
  if (bind === '0.0.0.0' || bind === '::') return '127.0.0.1';
  return bind.includes(':') ? `[${bind}]` : bind;
}

/**
 * The features a plan asks for, on top of those its source brings, in layer
 * order (first innermost): the operator tools, then ACLs on xDS (a core hub's
 * tokens; a fan-out hub has none), so each node's view is filtered last.
 */
function featuresFor(
  config: Config,
  logger: pino.Logger,
  metrics: HubMetrics,
  source: HubSource,
  parts: HubParts,
): { features: HubFeature[]; ops?: Ops } {
  const core = source.kind === 'core' ? (source as unknown as CoreSource) : undefined;
  if (parts.ops && (!parts.xds || !core))
    throw new Error('assemble: the operator tools need xDS and a core source (a log)');
  const ops =
    parts.ops && core
      ? createOps({ catalog: core.catalog, log: core.log, config, logger, registry: metrics.registry })
      : undefined;
  const features = [
    ...(ops ? [opsFeature(ops)] : []),
    ...(parts.xds && core ? [xdsAclFeature(core.acl, core.catalog)] : []),
    ...source.features,
  ];
  return { features, ...(ops ? { ops } : {}) };
}

/** The gRPC server, its services added (Subscribe, xDS) and bound. */
async function startGrpc(
  config: Config,
  logger: pino.Logger,
  metrics: HubMetrics,
  source: HubSource,
  features: HubFeature[],
  parts: HubParts,
  undo: Undo,
) {
  const server = new grpc.Server({
    'grpc.keepalive_permit_without_calls': 1,
    // Larger messages are refused by grpc-js with RESOURCE_EXHAUSTED naming both sizes.
    'grpc.max_receive_message_length': config.limits.grpcMaxMessageBytes,
    ...connectionStreamOptions(config.limits.grpcMaxStreamsPerConnection),
  });
  // Streams per gRPC connection (--grpc-max-streams-per-connection), shared by Subscribe and xDS.
  const streams = connectionStreamCounter(config.limits.grpcMaxStreamsPerConnection);
  if (parts.subscribe)
    addSubscribeService(server, {
      publisher: source.publisher,
      logger,
      datacenter: config.datacenter,
      acl: source.acl,
      limits: config.limits,
      connections: streams,
    });
  let xds: XdsPart | undefined;
  if (parts.xds) {
    const connect = source.kind === 'core' ? catalogConnectSource(source.catalog) : undefined;
    xds = buildXds({
      config,
      logger,
      metrics,
      views: source.views,
      streams,
      features,
      ...(connect ? { connect } : {}),
    });
    const part = xds;
    undo.push(() => {
      part.endStreams();
      part.provider.close();
    });
    xds.xds.addTo(server);
  }
  const host = config.bind.includes(':') ? `[${config.bind}]` : config.bind;
  const port = await bindGrpc(server, `${host}:${config.grpcPort}`, grpcServerCredentials(config));
  undo.push(() => server.forceShutdown());
  return { server, port, xds };
}

/** The HTTP app with every feature's hooks and routes, listening. */
async function startHttp(
  config: Config,
  logger: pino.Logger,
  metrics: HubMetrics,
  source: HubSource,
  features: HubFeature[],
  xds: XdsPart | undefined,
  undo: Undo,
) {
  const https = httpsOptions(config);
  const http = buildHttpApp({
    catalog: source.catalog,
    config,
    logger,
    metrics,
    views: source.views,
    ...source.http,
    ...(https ? { https } : {}),
  });
  undo.push(() => http.close());
  if (https) {
    const stopWatching = watchHttpsFiles(http.server as unknown as TlsServer, config, logger.child({ module: 'tls' }));
    http.addHook('onClose', async () => stopWatching());
  }
  const hooks = features.filter((f) => f.writeHook);
  if (hooks.length > 1) throw new Error(`assemble: one write hook at most (${hooks.map((f) => f.name).join(', ')})`);
  if (hooks[0]?.writeHook) http.decorate('xdshubWriteHook', hooks[0].writeHook);
  for (const f of features) f.http?.(http);
  if (xds) {
    const configAt = features.find((f) => f.configAt)?.configAt;
    // REST-JSON xDS (POST /v3/discovery:*) and the xDS admin views on the HTTP port.
    registerXdsHttp(http, { xds: xds.xds, routes: XDS_ROUTES, ...(configAt ? { configAt } : {}) });
  }
  await http.listen({ host: config.bind, port: config.httpPort });
  const address = http.server.address();
  return { http, port: typeof address === 'object' && address ? address.port : config.httpPort };
}

export async function assemble<S extends HubSource>(
  config: Config,
  logger: pino.Logger,
  open: (metrics: HubMetrics, undo: Undo) => S | Promise<S>,
  options: AssembleOptions,
): Promise<Assembled<S>> {
  let state: HubState = 'STARTING';
  const metrics = createMetrics();
  const undo = new Undo();
  // The HTTP app reports the ports the hub really has (status/leader, agent/self).
  const effective: Config = { ...config };
  let source: S,
    features: HubFeature[],
    ops: Ops | undefined,
    grpcPart: Awaited<ReturnType<typeof startGrpc>>,
    httpPart: Awaited<ReturnType<typeof startHttp>>;
  try {
    source = await open(metrics, undo);
    ({ features, ops } = featuresFor(config, logger, metrics, source, options.parts));
    if (ops) undo.push(() => ops!.close());
    grpcPart = await startGrpc(config, logger, metrics, source, features, options.parts, undo);
    effective.grpcPort = grpcPart.port;
    httpPart = await startHttp(effective, logger, metrics, source, features, grpcPart.xds, undo);
    effective.httpPort = httpPart.port;
  } catch (err) {
    await undo.unwind();
    throw err;
  }
  state = 'RUNNING';
  const { server, xds } = grpcPart;
  const { http } = httpPart;

  async function close(): Promise<void> {
    state = 'STOPPING';
    // Stop accepting: HTTP answers 503, aborts blocking queries and waits for
    // in-flight writes; gRPC refuses new calls. Then end the streams (xDS first,
    // then Subscribe, so clients resume elsewhere) so gRPC need not wait out its grace.
    const httpClosed = http.close();
    const grpcClosed = shutdownGrpc(server, options.grpcGraceMs ?? 2_000);
    xds?.endStreams();
    for (const f of [...features].reverse()) await f.close?.();
    xds?.provider.close();
    source.endStreams();
    await Promise.all([httpClosed, grpcClosed]);
    await source.close();
    state = 'STOPPED';
    logger.info('hub stopped');
  }
  let closing: Promise<void> | undefined;
  return {
    config: effective,
    source,
    metrics,
    xds,
    ops,
    http,
    grpc: server,
    httpPort: httpPart.port,
    grpcPort: grpcPart.port,
    httpUrl: `${config.tlsCert ? 'https' : 'http'}://${hostForUrl(config.bind)}:${httpPart.port}`,
    state: () => state,
    close: () => (closing ??= close()),
  };
}
