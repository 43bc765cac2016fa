// What a hub's pipeline folds from (docs/architecture.md): a core hub's catalog
// over its log, or a fan-out hub's relay of an upstream's Subscribe streams.
// Either way the assembler gets a publisher for Subscribe, the views the xDS
// provider and the HTTP reads share, and what the HTTP app needs of it.
import type pino from 'pino';
import { type AclResolver, createAclResolver } from '../acl/resolver';
import { accessorForInitialToken, sha256Hex } from '../acl/secrets';
import type { Catalog } from '../catalog/catalog';
import { createCatalog, startTtlScheduler } from '../catalog/index';
import { startAliasChecks } from '../checks/alias';
import { startCheckRunner } from '../checks/runner';
import { createAddressPolicy } from '../checks/targets';
import type { Config } from '../config';
import { type ConnectCa, startConnectCa } from '../connect/manager';
import { registerConnectMetrics } from '../connect/metrics';
import { prepareDataDir } from '../data-dir';
import { HubError } from '../errors';
import { trackChangedKeys } from '../fanout/changed';
import { createRelayPublisher, type RelayPublisher } from '../fanout/relay';
import { swappableViews } from '../fanout/views';
import { registerAgentNode } from '../http/agent-node';
import { sharedAsk } from '../http/blocking';
import type { HttpDeps } from '../http/context';
import { managementToken } from '../http/translate/acl';
import { openLog } from '../log/index';
import type { Log } from '../log/log';
import { STORE_KINDS, storeKind } from '../log/store-kinds';
import { createViewStore, inProcessSource } from '../materializer/index';
import { requestForKey } from '../materializer/keys';
import { grpcSource } from '../materializer/sources/grpc';
import type { ViewKey, ViewStore } from '../materializer/types';
import type { HubMetrics } from '../metrics';
import { createPublisher, type HubPublisher } from '../subscribe/publisher';
import type { Publisher } from '../subscribe/types';
import { forwardingFeature, type HubFeature } from './features';
import type { Undo } from './undo';

export interface HubSource {
  readonly kind: 'core' | 'relay';
  /** The catalog, or (fan-out) a stand-in that knows only the index. */
  readonly catalog: Catalog;
  /** Subscribe's source. */
  readonly publisher: Publisher;
  /** The views xDS and the HTTP reads share. */
  readonly views: ViewStore;
  readonly acl: AclResolver;
  /** What the HTTP app is given besides the common parts. */
  readonly http: Omit<HttpDeps, 'catalog' | 'config' | 'logger' | 'metrics' | 'views'>;
  /** Features the source itself brings (a fan-out hub forwards what it cannot answer). */
  readonly features: HubFeature[];
  /** Ends Subscribe streams (clients resume elsewhere); views still answer. */
  endStreams(): void;
  /** Closes the rest, after the servers closed. */
  close(): Promise<void>;
}

export interface CoreSource extends HubSource {
  readonly kind: 'core';
  readonly log: Log;
  readonly publisher: HubPublisher;
  readonly connect: ConnectCa;
}

export interface RelaySource extends HubSource {
  readonly kind: 'relay';
  readonly relay: RelayPublisher;
}

/** The publisher's options a test may set (a lag bound to trip). */
export interface PublisherOptions {
  maxLag?: number;
}

/** --acl-initial-management-token: written to the log once (a no-op on later starts and on other hubs). */
async function ensureInitialManagementToken(catalog: Catalog, secret: string): Promise<void> {
  const token = managementToken(secret, accessorForInitialToken(sha256Hex(secret)), 'Initial Management Token');
  const result = await catalog.submit({ type: 'acl-bootstrap', token, initial: true });
  if (!result.ok) throw new Error(`writing the initial management token failed: ${result.error?.message ?? 'refused'}`);
}

/** The log and the catalog folded from it, with its ACL tables. */
async function openCatalog(config: Config, logger: pino.Logger, metrics: HubMetrics, undo: Undo) {
  // The SQLite log (and history.db beside it) holds the CA's keys: a private directory or no start.
  if (storeKind(config.store).usesDataDir) prepareDataDir(config.dataDir, config.dataDirInsecureOk, logger);
  const log = await openLog(config.store, config.dataDir, logger.child({ module: 'log' }), config.redis);
  undo.push(() => log.close());
  const catalog = await createCatalog({
    log,
    logger: logger.child({ module: 'catalog' }),
    compactEvery: config.compactEvery,
    compactKeepTail: config.compactKeepTail,
    onRefusedAtApply: (type) => metrics.refusedAtApply.inc({ type }),
  });
  undo.push(() => catalog.close());
  metrics.setIndexSource(() => catalog.lastIndex());
  const acl = createAclResolver(catalog, {
    enabled: config.aclEnabled,
    defaultPolicy: config.aclDefaultPolicy,
    datacenter: config.datacenter,
  });
  undo.push(() => acl.close());
  if (config.aclEnabled && config.aclInitialManagementToken)
    await ensureInitialManagementToken(catalog, config.aclInitialManagementToken);
  // The hub's own node, as a Consul agent registers its node on joining (http/agent-node.ts).
  await registerAgentNode(catalog, config, logger);
  return { log, catalog, acl };
}

/** What runs beside the catalog: TTL expiry, health checks, alias checks, the CA. */
async function startAgents(config: Config, logger: pino.Logger, metrics: HubMetrics, catalog: Catalog, undo: Undo) {
  const { nodeName } = config;
  const ttl = startTtlScheduler({ catalog, logger: logger.child({ module: 'ttl' }), nodeName });
  undo.push(() => ttl.stop());
  const checks = startCheckRunner({
    catalog,
    logger: logger.child({ module: 'checks' }),
    nodeName,
    policy: createAddressPolicy(config.checkAllowCidrs),
  });
  undo.push(() => checks.stop());
  const aliases = startAliasChecks({ catalog, logger: logger.child({ module: 'alias-checks' }), nodeName });
  undo.push(() => aliases.stop());
  // The CA's first root is made on the first start and kept in the log (every hub sharing it agrees).
  const connect = startConnectCa({
    catalog,
    logger: logger.child({ module: 'connect-ca' }),
    datacenter: config.datacenter,
    initialLeafTtlMs: config.caLeafCertTtlMs,
  });
  undo.push(() => connect.stop());
  registerConnectMetrics(metrics.registry, connect, catalog);
  await connect.ready();
  const stop = async () => {
    await ttl.stop();
    checks.stop();
    aliases.stop();
    connect.stop();
  };
  return { connect, stop };
}

/** A core hub's source: log → catalog → publisher → views, with checks and the CA beside them. */
export async function openCoreSource(
  config: Config,
  logger: pino.Logger,
  metrics: HubMetrics,
  undo: Undo,
  options: PublisherOptions = {},
): Promise<CoreSource> {
  const { log, catalog, acl } = await openCatalog(config, logger, metrics, undo);
  const agents = await startAgents(config, logger, metrics, catalog, undo);
  const publisher = createPublisher({
    catalog,
    acl,
    snapshotCacheTtlMs: config.snapshotCacheTtlMs,
    logger,
    ...(options.maxLag !== undefined ? { maxLag: options.maxLag } : {}),
  });
  undo.push(() => publisher.close());
  const views = createViewStore({ source: inProcessSource(publisher), logger });
  undo.push(() => views.close());
  // Fan-out hubs wait for what a forwarded write changed (docs/fanout.md).
  const changed = trackChangedKeys(catalog);
  undo.push(() => changed.stop());
  // Several hubs share a Redis log: one may be asked with an index another gave (blocking.ts).
  const logHead = STORE_KINDS[log.kind].shared
    ? sharedAsk(async () => (log.available() ? log.lastIndex() : undefined))
    : undefined;
  return {
    kind: 'core',
    log,
    catalog,
    publisher,
    views,
    acl,
    connect: agents.connect,
    features: [],
    http: {
      viewTarget: (key: ViewKey) => publisher.lastChangeIndex(requestForKey(key, '')),
      hasLeader: () => log.available(),
      ...(logHead ? { logHead } : {}),
      connect: agents.connect,
      changedKeys: changed.get,
      acl: { resolver: acl, certToken: config.tlsClientCertToken, certTokenAllow: config.tlsClientCertTokenAllow },
    },
    endStreams: () => publisher.close(),
    async close() {
      changed.stop();
      views.close();
      await agents.stop();
      await catalog.close();
      acl.close();
      await log.close();
    },
  };
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
        throw new HubError(
          'INTERNAL',
          `fan-out hub: catalog.${String(name)} is not available here (this request should have been forwarded upstream)`,
        );
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

/** A fan-out hub's source (docs/fanout.md): relays of the upstream's Subscribe streams → views. */
export function openRelaySource(config: Config, logger: pino.Logger, metrics: HubMetrics, undo: Undo): RelaySource {
  if (config.upstream === undefined || config.upstreamHttp === undefined)
    throw new HubError('INVALID_ARGUMENT', 'upstream: a fan-out hub needs --upstream and --upstream-http');
  const source = grpcSource({
    address: config.upstream,
    channelOptions: { 'grpc.max_receive_message_length': config.limits.grpcMaxMessageBytes, ...UPSTREAM_RECONNECT },
  });
  undo.push(() => source.close());
  const relay = createRelayPublisher({ source, logger: logger.child({ module: 'fanout' }) });
  undo.push(() => relay.close());
  // Replaced as a whole when the upstream turns out to hold another log (src/fanout/views.ts).
  const views = swappableViews(() => createViewStore({ source: inProcessSource(relay), logger }));
  undo.push(() => views.close());
  const offNewLog = relay.onNewLog(() => {
    logger.warn(
      { upstream: config.upstream },
      'the upstream holds another log (its index went backwards): views rebuilt from it',
    );
    views.swap();
  });
  undo.push(offNewLog);
  const lastIndex = () => relay.lastIndex();
  metrics.setIndexSource(lastIndex);
  const catalog = relayIndexCatalog(lastIndex);
  const acl = createAclResolver(catalog, { enabled: false, defaultPolicy: 'allow', datacenter: config.datacenter });
  return {
    kind: 'relay',
    relay,
    catalog,
    publisher: relay,
    views,
    acl,
    features: [forwardingFeature(config.upstreamHttp, relay)],
    http: {
      viewTarget: (key: ViewKey) => relay.lastChangeIndex(requestForKey(key, '')),
      acl: { resolver: acl, certToken: false },
    },
    endStreams() {
      offNewLog();
      relay.close();
    },
    async close() {
      views.close();
      acl.close();
      source.close();
    },
  };
}
