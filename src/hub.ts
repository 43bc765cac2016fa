// One hub process, wired: log → catalog → TTL scheduler → HTTP API, plus the
// gRPC server that Subscribe and xDS attach to. close() shuts down in order:
// stop accepting (HTTP answers 503, gRPC refuses new calls), let in-flight
// writes finish, stop the TTL scheduler, close the catalog, close the log.
import * as grpc from '@grpc/grpc-js';
import type { FastifyInstance } from 'fastify';
import type pino from 'pino';
import type { Catalog } from './catalog/catalog';
import { createCatalog, startTtlScheduler } from './catalog/index';
import { type AliasChecks, startAliasChecks } from './checks/alias';
import { type CheckRunner, startCheckRunner } from './checks/runner';
import { startConnectCa, type ConnectCa } from './connect/manager';
import { registerConnectMetrics } from './connect/metrics';
import { catalogConnectSource } from './connect/source';
import { createAddressPolicy } from './checks/targets';
import type { Config } from './config';
import { buildHttpApp } from './http/app';
import { registerAgentNode } from './http/agent-node';
import { sharedAsk } from './http/blocking';
import { prepareDataDir } from './data-dir';
import { openLog } from './log/index';
import type { Log } from './log/log';
import { createMetrics, type HubMetrics } from './metrics';
import { createViewStore, inProcessSource } from './materializer/index';
import { requestForKey } from './materializer/keys';
import type { ViewKey, ViewStore } from './materializer/types';
import { addSubscribeService } from './subscribe/grpc';
import { createPublisher, type HubPublisher } from './subscribe/publisher';
import { createCatalogXdsProvider, type CatalogXdsProvider } from './xds/translate/catalog-provider';
import { withClientConfigSources } from './xds/translate/config-sources';
import { XDS_ROUTES } from './http/route-policy';
import { registerXdsHttp } from './xds/transport/http';
import { createXdsServer, type XdsServer } from './xds/transport/server';
import { createOps, type Ops } from './ops/index';
import { type AclResolver, createAclResolver } from './acl/resolver';
import { accessorForInitialToken, sha256Hex } from './acl/secrets';
import { managementToken } from './http/translate/acl';
import { grpcServerCredentials, httpsOptions, watchHttpsFiles } from './tls';
import type { Server as TlsServer } from 'node:tls';
import { connectionStreamCounter, connectionStreamOptions, type StreamCounter } from './stream-limits';
import { createXdsAcl } from './acl/xds';
import type { XdsNode } from './xds/transport/provider';
import { trackChangedKeys } from './fanout/changed';
import { STORE_KINDS, storeKind } from './log/store-kinds';

export type HubState = 'STARTING' | 'RUNNING' | 'STOPPING' | 'STOPPED';

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
  attachGrpc?: (server: grpc.Server, hub: GrpcAttachContext) => void | (() => void | Promise<void>) | AttachedServices;
}

/** What attachGrpc may hand back: a cleanup, and routes for the HTTP app. */
export interface AttachedServices {
  /** Adds routes to the HTTP app before it listens. */
  registerHttp?(app: FastifyInstance): void;
  /** Run at shutdown after gRPC stopped and before the catalog closes. */
  close?(): void | Promise<void>;
}

export interface GrpcAttachContext {
  catalog: Catalog;
  /** The log (the operator tools replay it). */
  log: Log;
  config: Config;
  logger: pino.Logger;
  metrics: HubMetrics;
  /** The hub's event publisher over the catalog (Subscribe's source). */
  publisher: HubPublisher;
  /** Views materialized in-process from the publisher; the HTTP reads use the same store. */
  views: ViewStore;
  /** ACL resolver: Subscribe and xDS check tokens with it. */
  acl: AclResolver;
  /** Streams per gRPC connection (--grpc-max-streams-per-connection), shared by Subscribe and xDS. */
  streams: StreamCounter;
}

/**
 * The services a hub process serves on its gRPC port: Consul's Subscribe
 * (publisher over the catalog) and xDS (catalog views materialized in-process
 * from that publisher → Envoy resources). `xdshub serve` uses this; tests that
 * need only HTTP leave it out.
 */
export function attachHubServices(
  server: grpc.Server,
  hub: GrpcAttachContext,
): AttachedServices & { xds: XdsServer; provider: CatalogXdsProvider; ops: Ops } {
  const { config, metrics, publisher, views } = hub;
  addSubscribeService(server, { publisher, logger: hub.logger, datacenter: config.datacenter, acl: hub.acl, limits: config.limits, connections: hub.streams });
  // Operator tools (docs/operator-tools.md): the history records the index each translation stands for.
  const ops = createOps({ catalog: hub.catalog, log: hub.log, config, logger: hub.logger, registry: metrics.registry });
  const provider = createCatalogXdsProvider({
    views: ops.tracker.views(views),
    logger: hub.logger,
    // Sidecars (docs/mesh.md): their certificates from the built-in CA, the datacenter in their SPIFFE IDs.
    connect: catalogConnectSource(hub.catalog),
    datacenter: config.datacenter,
    defaultIntention: config.defaultIntention,
  });
  ops.tracker.follow(provider);
  // Per-type and REST clients get config sources they can follow (docs/envoy.md); rollouts hold nodes on top.
  const served = ops.serve(withClientConfigSources(provider));
  // ACLs (docs/security.md): each node sees what its token may read; a token's change ends its streams.
  const xdsAcl = createXdsAcl(hub.acl, hub.catalog);
  const xds = createXdsServer({
    provider: xdsAcl.provider(served),
    config,
    logger: hub.logger,
    registry: metrics.registry,
    observer: ops.observer,
    connections: hub.streams,
    maxResourceNames: config.limits.xdsMaxResourceNames,
    ...(hub.acl.settings.enabled ? { admit: (node: XdsNode) => xdsAcl.admit(node) } : {}),
  });
  const unwatch = xdsAcl.watch(() => xds.streams());
  ops.attach(xds);
  xds.addTo(server);
  return {
    xds,
    provider,
    ops,
    // REST-JSON xDS (POST /v3/discovery:*), the xDS admin views and the operator tools on the HTTP port.
    registerHttp: (app) => {
      registerXdsHttp(app, { xds, configAt: ops.configAt, routes: XDS_ROUTES });
      ops.registerHttp(app);
    },
    // Reverse order of creation: streams end first, then what feeds them.
    async close() {
      unwatch();
      xds.close();
      await ops.close();
      provider.close();
    },
  };
}

export function bindGrpc(server: grpc.Server, address: string, credentials: grpc.ServerCredentials): Promise<number> {
  return new Promise((resolve, reject) => server.bindAsync(address, credentials, (err, port) => (err ? reject(err) : resolve(port))));
}

/** --acl-initial-management-token: written to the log once (a no-op on later starts and on other hubs). */
async function ensureInitialManagementToken(catalog: Catalog, secret: string): Promise<void> {
  const token = managementToken(secret, accessorForInitialToken(sha256Hex(secret)), 'Initial Management Token');
  const result = await catalog.submit({ type: 'acl-bootstrap', token, initial: true });
  if (!result.ok) throw new Error(`writing the initial management token failed: ${result.error?.message ?? 'refused'}`);
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

export async function createHub(config: Config, logger: pino.Logger, options: HubOptions = {}): Promise<Hub> {
  let state: HubState = 'STARTING';
  const metrics = createMetrics();
  // What started so far, undone in reverse if a later step fails (e.g. a port in use).
  const undo: Array<() => unknown> = [];
  const unwind = async () => {
    for (const step of undo.reverse()) await Promise.resolve(step()).catch(() => undefined);
  };
  let log: Log, catalog: Catalog, ttl: { stop(): void }, checks: CheckRunner, aliases: AliasChecks, grpcServer: grpc.Server, http: FastifyInstance;
  let publisher: HubPublisher, views: ViewStore, acl: AclResolver, connect: ConnectCa;
  const viewTarget = (key: ViewKey) => publisher.lastChangeIndex(requestForKey(key, ''));
  let attached: AttachedServices = {};
  let grpcPort: number, httpPort: number;
  const effective: Config = { ...config };
  try {
    // The SQLite log (and history.db beside it) holds the CA's keys: a private directory or no start.
    if (storeKind(config.store).usesDataDir) prepareDataDir(config.dataDir, config.dataDirInsecureOk, logger);
    log = await openLog(config.store, config.dataDir, logger.child({ module: 'log' }), config.redis);
    undo.push(() => log.close());
    catalog = await createCatalog({
      log,
      logger: logger.child({ module: 'catalog' }),
      compactEvery: config.compactEvery,
      compactKeepTail: config.compactKeepTail,
      onRefusedAtApply: (type) => metrics.refusedAtApply.inc({ type }),
    });
    undo.push(() => catalog.close());
    metrics.setIndexSource(() => catalog.lastIndex());
    acl = createAclResolver(catalog, { enabled: config.aclEnabled, defaultPolicy: config.aclDefaultPolicy, datacenter: config.datacenter });
    undo.push(() => acl.close());
    if (config.aclEnabled && config.aclInitialManagementToken) await ensureInitialManagementToken(catalog, config.aclInitialManagementToken);
    await registerAgentNode(catalog, config, logger);
    ttl = startTtlScheduler({ catalog, logger: logger.child({ module: 'ttl' }), nodeName: config.nodeName });
    undo.push(() => ttl.stop());
    checks = startCheckRunner({
      catalog,
      logger: logger.child({ module: 'checks' }),
      nodeName: config.nodeName,
      policy: createAddressPolicy(config.checkAllowCidrs),
    });
    undo.push(() => checks.stop());
    aliases = startAliasChecks({ catalog, logger: logger.child({ module: 'alias-checks' }), nodeName: config.nodeName });
    undo.push(() => aliases.stop());
    // The CA's first root is made on the first start and kept in the log (every hub sharing it agrees).
    connect = startConnectCa({ catalog, logger: logger.child({ module: 'connect-ca' }), datacenter: config.datacenter, initialLeafTtlMs: config.caLeafCertTtlMs });
    undo.push(() => connect.stop());
    registerConnectMetrics(metrics.registry, connect, catalog);
    await connect.ready();
    publisher = createPublisher({
      catalog,
      acl,
      snapshotCacheTtlMs: config.snapshotCacheTtlMs,
      logger,
    });
    undo.push(() => publisher.close());
    views = createViewStore({ source: inProcessSource(publisher), logger });
    undo.push(() => views.close());

    grpcServer = new grpc.Server({
      'grpc.keepalive_permit_without_calls': 1,
      // Larger messages are refused by grpc-js with RESOURCE_EXHAUSTED naming both sizes.
      'grpc.max_receive_message_length': config.limits.grpcMaxMessageBytes,
      ...connectionStreamOptions(config.limits.grpcMaxStreamsPerConnection),
    });
    // ── gRPC services are added here, before bind (Subscribe, xDS). ──
    const streams = connectionStreamCounter(config.limits.grpcMaxStreamsPerConnection);
    const result = options.attachGrpc?.(grpcServer, { catalog, log, config, logger, metrics, publisher, views, acl, streams });
    attached = typeof result === 'function' ? { close: result } : (result ?? {});
    undo.push(() => attached.close?.());
    const grpcHost = config.bind.includes(':') ? `[${config.bind}]` : config.bind;
    grpcPort = await bindGrpc(grpcServer, `${grpcHost}:${config.grpcPort}`, grpcServerCredentials(config));
    undo.push(() => grpcServer.forceShutdown());

    // The HTTP app reports the ports the hub really has (status/leader, agent/self).
    effective.grpcPort = grpcPort;
    const https = httpsOptions(config);
    // Fan-out hubs wait for what a forwarded write changed (docs/fanout.md).
    const changed = trackChangedKeys(catalog);
    undo.push(() => changed.stop());
    // Several hubs share a Redis log: one may be asked with an index another gave (blocking.ts).
    const logHead = STORE_KINDS[log.kind].shared ? sharedAsk(async () => (log.available() ? log.lastIndex() : undefined)) : undefined;
    http = buildHttpApp({ catalog, config: effective, logger, metrics, views, viewTarget, hasLeader: () => log.available(), ...(logHead ? { logHead } : {}), connect, changedKeys: changed.get, acl: { resolver: acl, certToken: config.tlsClientCertToken, certTokenAllow: config.tlsClientCertTokenAllow }, ...(https ? { https } : {}) });
    undo.push(() => http.close());
    if (https) {
      const stopWatching = watchHttpsFiles(http.server as unknown as TlsServer, config, logger.child({ module: 'tls' }));
      http.addHook('onClose', async () => stopWatching());
    }
    attached.registerHttp?.(http);
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
    // Stop accepting: HTTP answers 503, aborts blocking queries and waits for
    // in-flight writes; gRPC refuses new calls. Then end the attached streams
    // (Subscribe, xDS) so gRPC need not wait out its grace (after which it cancels).
    const httpClosed = http.close();
    const grpcClosed = shutdownGrpc(grpcServer, options.grpcGraceMs ?? 2_000);
    await attached.close?.();
    // Subscribe streams end with UNAVAILABLE (clients resume elsewhere); views
    // and blocking reads answer with what they hold.
    publisher.close();
    await Promise.all([httpClosed, grpcClosed]);
    views.close();
    await ttl.stop();
    checks.stop();
    aliases.stop();
    connect.stop();
    await catalog.close();
    acl.close();
    await log.close();
    state = 'STOPPED';
    logger.info('hub stopped');
  }

  return {
    config: effective,
    log,
    catalog,
    connect,
    metrics,
    publisher,
    views,
    acl,
    viewTarget,
    http,
    grpc: grpcServer,
    httpPort,
    grpcPort,
    httpUrl: `${config.tlsCert ? 'https' : 'http'}://${hostForUrl(config.bind)}:${httpPort}`,
    state: () => state,
    close: () => (closing ??= close()),
  };
}
