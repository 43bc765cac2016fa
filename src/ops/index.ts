// The operator tools, wired: the per-node history (an observer of the xDS
// transport), config at an index and diffs (replayed from the log), dry runs
// and staged rollouts (writes through the HTTP write hook), the event stream
// and the dashboard. attachHubServices (src/hub.ts) creates one per hub.
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { Gauge, type Registry } from 'prom-client';
import type { Catalog } from '../catalog/catalog';
import type { Config } from '../config';
import type { Log } from '../log/log';
import type { AnswerEvent, SentEvent, XdsObserver } from '../xds/transport/observer';
import type { ResourceProvider, XdsNode } from '../xds/transport/provider';
import type { XdsServer } from '../xds/transport/server';
import { createEventBus, type EventBus } from './events';
import { createHistory, MAX_HISTORY_NODES, recordEvent, type History, type HistoryPersistence } from './history';
import { createRedisHistory } from './history-redis';
import { createSqliteHistory } from './history-sqlite';
import { createIndexTracker, type IndexTracker } from './index-tracker';
import { registerOpsHttp } from './http';
import { opsReads } from './reads';
import { createRollouts, type Rollouts } from './rollout';
import { createShadow, type Shadow } from './shadow';
import { createStatusTracker } from './status';
import { storeKind } from '../log/store-kinds';

export const HISTORY_FILE = 'history.db';

export interface OpsDeps {
  catalog: Catalog;
  log: Log;
  config: Config;
  logger: Logger;
  registry?: Registry;
}

export interface Ops {
  readonly tracker: IndexTracker;
  readonly history: History;
  readonly events: EventBus;
  /** Wraps the live provider (with config sources) for the xDS server: rollouts hold nodes here. */
  serve(live: ResourceProvider): ResourceProvider;
  readonly observer: XdsObserver;
  /** Tells the tools which server the nodes are on. */
  attach(xds: XdsServer): void;
  registerHttp(app: FastifyInstance): void;
  /** `GET /v1/xds/config/:node?index=N` (handed to the transport's admin route). */
  configAt(node: string, index: string, cluster: string | undefined): Promise<unknown>;
  readonly rollouts: Rollouts;
  /** Stops everything; resolves once the history's buffered records are written. */
  close(): Promise<void>;
}

/**
 * Where the history is kept: beside the log when the log is stored (SQLite: its
 * own file; Redis: its own keys, shared by the hubs on that Redis), else (or
 * when asked) in memory only.
 */
function historyPersistence(config: Config, logger: Logger): HistoryPersistence | undefined {
  const { store } = config;
  const where = storeKind(store).history;
  const persist = config.xdsHistoryPersist === 'auto' ? where !== 'none' : config.xdsHistoryPersist === 'on';
  if (!persist || config.xdsHistory <= 0) return undefined;
  if (where === 'redis-keys') return createRedisHistory({ url: store.url!, perNode: config.xdsHistory, maxNodes: MAX_HISTORY_NODES, logger });
  return createSqliteHistory({ path: join(config.dataDir, HISTORY_FILE), perNode: config.xdsHistory });
}

export function createOps(deps: OpsDeps): Ops {
  const { catalog, config } = deps;
  const logger = deps.logger.child({ module: 'ops' });
  const tracker = createIndexTracker();
  const events = createEventBus();
  let xds: XdsServer | undefined;
  const persistence = historyPersistence(config, logger);
  const history = createHistory({
    perNode: config.xdsHistory,
    hub: config.nodeName,
    index: () => tracker.index(),
    ...(persistence ? { persistence } : {}),
    // Every push and answer of every stream passes here: nothing is built unless someone listens.
    onRecord: (node, r) => {
      if (events.size() > 0) events.publish({ type: r.answer ? 'answer' : 'push', data: recordEvent(node, r) });
    },
  });
  const shadows = new Set<Shadow>();
  const newShadow = (): Shadow => {
    const s = createShadow(logger);
    shadows.add(s);
    return { provider: s.provider, sync: (r, only, keep) => s.sync(r, only, keep), close: () => (shadows.delete(s), s.close()) };
  };
  const reads = opsReads({ log: deps.log, history, newShadow, xds: () => xds });
  let live: ResourceProvider | undefined;
  const rolloutGauge = deps.registry
    ? new Gauge({ name: 'xdshub_rollouts', help: 'Staged rollouts by state (canary, held: in progress; completed, rolled-back, refused: the last 50)', labelNames: ['state'], registers: [deps.registry] })
    : undefined;
  const connected = (): XdsNode[] => (xds?.streams() ?? []).flatMap((s) => (s.node && !s.isClosed ? [s.node] : []));
  const rollouts = createRollouts({
    catalog,
    get live() {
      return live!;
    },
    connected,
    shadow: newShadow,
    translated: (index) => tracker.reached(index),
    changed(r) {
      events.publish({ type: 'rollout', data: r });
      if (rolloutGauge) {
        rolloutGauge.reset();
        for (const x of rollouts.list()) rolloutGauge.inc({ state: x.state });
      }
      logger.info({ rollout: r.id, state: r.state, reason: r.reason }, 'rollout');
    },
  });

  // The catalog's index, coalesced to one event per 100 ms: the dashboard re-reads what it shows.
  let indexTimer: NodeJS.Timeout | undefined;
  const stopIndex = catalog.onApplied(() => {
    if (indexTimer) return;
    indexTimer = setTimeout(() => {
      indexTimer = undefined;
      events.publish({ type: 'index', data: { index: String(catalog.lastIndex()) } });
    }, 100);
  });

  const status = createStatusTracker(() => tracker.index());
  const observer: XdsObserver = {
    sent: (e: SentEvent) => {
      history.sent?.(e);
      status.sent(e);
    },
    answered: (e: AnswerEvent) => {
      history.answered?.(e);
      status.answered(e);
      rollouts.answered(e);
    },
  };

  const ops: Ops = {
    tracker,
    history,
    events,
    observer,
    rollouts,
    serve(provider) {
      live = provider;
      return rollouts.provider;
    },
    attach(server) {
      xds = server;
    },
    registerHttp(app) {
      events.register(app);
      registerOpsHttp(app, { catalog, history, rollouts, reads, tracker: status, newShadow, xds: () => xds, uiDir: uiDirectory() });
    },
    configAt: (node, index, cluster) => reads.configAt(node, index, cluster),
    async close() {
      stopIndex();
      if (indexTimer) clearTimeout(indexTimer);
      rollouts.close();
      for (const s of [...shadows]) s.close();
      events.close();
      await history.close();
    },
  };
  return ops;
}

/** The dashboard's static files: `ui/` at the repository root, from src/ops or dist/src/ops. */
function uiDirectory(): string {
  return join(__dirname, __dirname.includes(`${join('dist', 'src')}`) ? '../../..' : '../..', 'ui');
}
