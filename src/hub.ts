// One hub process, wired: log → catalog → TTL scheduler → HTTP API, plus the
// gRPC server that Subscribe and xDS attach to. close() shuts down in order:
// stop accepting (HTTP answers 503, gRPC refuses new calls), let in-flight
// writes finish, stop the TTL scheduler, close the catalog, close the log.
import * as grpc from '@grpc/grpc-js';
import type { FastifyInstance } from 'fastify';
import type pino from 'pino';
import type { Catalog } from './catalog/catalog';
import { createCatalog, startTtlScheduler } from './catalog/index';
import type { Config } from './config';
import { buildHttpApp } from './http/app';
import { openLog } from './log/index';
import type { Log } from './log/log';
import { createMetrics, type HubMetrics } from './metrics';

export type HubState = 'STARTING' | 'RUNNING' | 'STOPPING' | 'STOPPED';

export interface Hub {
  readonly config: Config;
  readonly log: Log;
  readonly catalog: Catalog;
  readonly metrics: HubMetrics;
  readonly http: FastifyInstance;
  /** The shared gRPC server (Subscribe and xDS). Already bound and serving. */
  readonly grpc: grpc.Server;
  /** Actual ports (differ from config when 0 was asked). */
  readonly httpPort: number;
  readonly grpcPort: number;
  readonly httpUrl: string;
  state(): HubState;
  close(): Promise<void>;
}

export interface HubOptions {
  /** How long gRPC streams get to finish before they are cancelled at shutdown. */
  grpcGraceMs?: number;
  /**
   * Adds services to the gRPC server before it binds. Subscribe and xDS attach
   * here; the function may return a cleanup run at shutdown before the catalog closes.
   */
  attachGrpc?: (server: grpc.Server, hub: { catalog: Catalog; config: Config; logger: pino.Logger; metrics: HubMetrics }) =>
    | void
    | (() => void | Promise<void>);
}

function bindGrpc(server: grpc.Server, address: string): Promise<number> {
  return new Promise((resolve, reject) =>
    server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (err, port) => (err ? reject(err) : resolve(port))),
  );
}

function shutdownGrpc(server: grpc.Server, graceMs: number): Promise<void> {
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

export async function createHub(config: Config, logger: pino.Logger, options: HubOptions = {}): Promise<Hub> {
  let state: HubState = 'STARTING';
  const metrics = createMetrics();
  // What started so far, undone in reverse if a later step fails (e.g. a port in use).
  const undo: Array<() => unknown> = [];
  const unwind = async () => {
    for (const step of undo.reverse()) await Promise.resolve(step()).catch(() => undefined);
  };
  let log: Log, catalog: Catalog, ttl: { stop(): void }, grpcServer: grpc.Server, http: FastifyInstance;
  let detachGrpc: void | (() => void | Promise<void>);
  let grpcPort: number, httpPort: number;
  const effective: Config = { ...config };
  try {
    log = await openLog(config.store, config.dataDir);
    undo.push(() => log.close());
    catalog = await createCatalog({
      log,
      logger: logger.child({ module: 'catalog' }),
      compactEvery: config.compactEvery,
      compactKeepTail: config.compactKeepTail,
    });
    undo.push(() => catalog.close());
    metrics.setIndexSource(() => catalog.lastIndex());
    ttl = startTtlScheduler({ catalog, logger: logger.child({ module: 'ttl' }), nodeName: config.nodeName });
    undo.push(() => ttl.stop());

    grpcServer = new grpc.Server({ 'grpc.keepalive_permit_without_calls': 1 });
    // ── gRPC services are added here, before bind (Subscribe, xDS). ──
    detachGrpc = options.attachGrpc?.(grpcServer, { catalog, config, logger, metrics });
    undo.push(() => detachGrpc?.());
    const grpcHost = config.bind.includes(':') ? `[${config.bind}]` : config.bind;
    grpcPort = await bindGrpc(grpcServer, `${grpcHost}:${config.grpcPort}`);
    undo.push(() => grpcServer.forceShutdown());

    // The HTTP app reports the ports the hub really has (status/leader, agent/self).
    effective.grpcPort = grpcPort;
    http = buildHttpApp({ catalog, config: effective, logger, metrics });
    undo.push(() => http.close());
    await http.listen({ host: config.bind, port: config.httpPort });
    const address = http.server.address();
    httpPort = typeof address === 'object' && address ? address.port : config.httpPort;
    effective.httpPort = httpPort;
  } catch (err) {
    await unwind();
    throw err;
  }
  state = 'RUNNING';

  let closing: Promise<void> | undefined;
  async function close(): Promise<void> {
    state = 'STOPPING';
    // HTTP: refuse new requests (503), abort blocking queries, wait for in-flight
    // writes; gRPC: refuse new calls, let streams end (cancelled after the grace).
    await Promise.all([http.close(), shutdownGrpc(grpcServer, options.grpcGraceMs ?? 2_000)]);
    await detachGrpc?.();
    await ttl.stop();
    await catalog.close();
    await log.close();
    state = 'STOPPED';
    logger.info('hub stopped');
  }

  return {
    config: effective,
    log,
    catalog,
    metrics,
    http,
    grpc: grpcServer,
    httpPort,
    grpcPort,
    httpUrl: `http://${hostForUrl(config.bind)}:${httpPort}`,
    state: () => state,
    close: () => (closing ??= close()),
  };
}
