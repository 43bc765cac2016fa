// The operator tools, wired: the per-node history (an observer of the xDS
// transport), config at an index and diffs (replayed from the log), dry runs
// and staged rollouts (writes through the HTTP write hook), the event stream
// and the dashboard. The assembler (src/assemble/) creates one per core hub and
// plugs it in through the extension points (src/assemble/features.ts, opsFeature).
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { Gauge, type Registry } from 'prom-client';
import type { Catalog } from '../catalog/catalog';
import type { Command } from '../catalog/commands';
import type { Config } from '../config';
import type { WriteHook } from '../http/write';
import type { Log } from '../log/log';
import { storeKind } from '../log/store-kinds';
import type { AnswerEvent, SentEvent, XdsCallbacks } from '../xds/transport/callbacks';
import type { ResourceProvider, XdsNode } from '../xds/transport/provider';
import type { XdsServer } from '../xds/transport/server';
import { createDryRunner, type DryRunner, envoyRejection } from './dry-run';
import { createEventBus, type EventBus } from './events';
import { createHistory, type History, type HistoryPersistence, MAX_HISTORY_NODES, recordEvent } from './history';
import { createRedisHistory } from './history-redis';
import { createSqliteHistory } from './history-sqlite';
import { opsWriteHook, registerOpsHttp } from './http';
import { createIndexTracker, type IndexTracker } from './index-tracker';
import { targetNodes } from './nodes';
import { opsReads } from './reads';
import { createRollouts, type Rollouts } from './rollout';
import { createShadow, type Shadow } from './shadow';
import { createStatusTracker } from './status';

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
  readonly observer: XdsCallbacks;
  /** Tells the tools which server the nodes are on. */
  attach(xds: XdsServer): void;
  /** Dry runs and rollouts on the write routes (the assembler installs it). */
  readonly writeHook: WriteHook;
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
  if (where === 'redis-keys')
    return createRedisHistory({ url: store.url!, perNode: config.xdsHistory, maxNodes: MAX_HISTORY_NODES, logger });
  return createSqliteHistory({ path: join(config.dataDir, HISTORY_FILE), perNode: config.xdsHistory });
}

/** The per-node history; every push and answer of every stream passes here, so nothing is built unless someone listens. */
function opsHistory(config: Config, logger: Logger, tracker: IndexTracker, events: EventBus): History {
  const persistence = historyPersistence(config, logger);
  return createHistory({
    perNode: config.xdsHistory,
    hub: config.nodeName,
    index: () => tracker.index(),
    ...(persistence ? { persistence } : {}),
    onRecord: (node, r) => events.publish({ type: r.answer ? 'answer' : 'push', data: recordEvent(node, r) }),
    listening: () => events.size() > 0,
  });
}

/** Shadow providers (dry runs, rollouts' predictions), each closed with the tools. */
function shadowPool(logger: Logger): { newShadow(): Shadow; close(): void } {
  const shadows = new Set<Shadow>();
  return {
    newShadow() {
      const s = createShadow(logger);
      shadows.add(s);
      return {
        provider: s.provider,
        sync: (r, only, keep) => s.sync(r, only, keep),
        close: () => {
          shadows.delete(s);
          s.close();
        },
      };
    },
    close: () => {
      for (const s of [...shadows]) s.close();
    },
  };
}

/** The catalog's index, coalesced to one event per 100 ms: the dashboard re-reads what it shows. */
function indexEvents(catalog: Catalog, events: EventBus): () => void {
  let timer: NodeJS.Timeout | undefined;
  const stop = catalog.onApplied(() => {
    if (timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      events.publish({ type: 'index', data: { index: String(catalog.lastIndex()) } });
    }, 100);
  });
  return () => {
    stop();
    if (timer) clearTimeout(timer);
  };
}

/** What the rollouts need to know of the xDS side, filled in by the serve and attach steps. */
interface XdsSide {
  live: ResourceProvider | undefined;
  xds: XdsServer | undefined;
}

function opsRollouts(
  deps: OpsDeps,
  logger: Logger,
  side: XdsSide,
  tracker: IndexTracker,
  events: EventBus,
  newShadow: () => Shadow,
  validate: ((command: Command) => Promise<string | null>) | undefined,
): Rollouts {
  const rolloutGauge = deps.registry
    ? new Gauge({
        name: 'xdshub_rollouts',
        help: 'Staged rollouts by state (canary, held: in progress; completed, rolled-back, refused: the last 50)',
        labelNames: ['state'],
        registers: [deps.registry],
      })
    : undefined;
  const rollouts: Rollouts = createRollouts({
    catalog: deps.catalog,
    get live() {
      // Set by serve(), which the assembler calls before any stream or write can reach a rollout.
      return side.live!;
    },
    connected: (): XdsNode[] => (side.xds?.streams() ?? []).flatMap((s) => (s.node && !s.isClosed ? [s.node] : [])),
    shadow: newShadow,
    translated: (index) => tracker.reached(index),
    ...(validate ? { validate } : {}),
    changed(r) {
      events.publish({ type: 'rollout', data: r });
      if (rolloutGauge) {
        rolloutGauge.reset();
        for (const x of rollouts.list()) rolloutGauge.inc({ state: x.state });
      }
      logger.info({ rollout: r.id, state: r.state, reason: r.reason }, 'rollout');
    },
  });
  return rollouts;
}

function envoyCheck(dryRunner: DryRunner, history: History, side: XdsSide) {
  return async (command: Command): Promise<string | null> =>
    envoyRejection(await dryRunner.run(command, targetNodes(side.xds, await history.nodes())));
}

export function createOps(deps: OpsDeps): Ops {
  const { catalog, config } = deps;
  const logger = deps.logger.child({ module: 'ops' });
  const tracker = createIndexTracker();
  const events = createEventBus();
  const side: XdsSide = { live: undefined, xds: undefined };
  const history = opsHistory(config, logger, tracker, events);
  const shadows = shadowPool(logger);
  const reads = opsReads({ log: deps.log, history, newShadow: shadows.newShadow, xds: () => side.xds });
  const binary = config.envoyValidateBinary;
  const dryRunner = createDryRunner(catalog, shadows.newShadow, binary === undefined ? {} : { envoyBinary: binary });
  // A rollout's change is put to Envoy as its dry run would be: every connected and known node's Envoys.
  const validate = binary === undefined ? undefined : envoyCheck(dryRunner, history, side);
  const rollouts = opsRollouts(deps, logger, side, tracker, events, shadows.newShadow, validate);
  const stopIndex = indexEvents(catalog, events);
  const status = createStatusTracker(() => tracker.index());
  const observer: XdsCallbacks = {
    sent: (e: SentEvent) => {
      history.sent?.(e);
      status.sent(e);
    },
    answered: (e: AnswerEvent) => {
      history.answered?.(e);
      status.answered(e);
      rollouts.answered(e);
    },
    // The dashboard's node pages redraw at once when a stream ends (events.ts).
    closed: (e) => events.publish({ type: 'stream', data: { node: e.node.id, stream: e.stream, state: 'closed' } }),
  };
  return {
    tracker,
    history,
    events,
    observer,
    rollouts,
    writeHook: opsWriteHook({ history, rollouts, xds: () => side.xds }, dryRunner),
    serve(provider) {
      side.live = provider;
      return rollouts.provider;
    },
    attach(server) {
      side.xds = server;
    },
    registerHttp(app) {
      events.register(app);
      registerOpsHttp(app, {
        catalog,
        history,
        rollouts,
        reads,
        tracker: status,
        newShadow: shadows.newShadow,
        xds: () => side.xds,
        uiDir: uiDirectory(),
      });
    },
    configAt: (node, index, cluster) => reads.configAt(node, index, cluster),
    async close() {
      stopIndex();
      dryRunner.close();
      rollouts.close();
      shadows.close();
      events.close();
      await history.close();
    },
  };
}

/** The dashboard's static files: `ui/` at the repository root, from src/ops or dist/src/ops. */
function uiDirectory(): string {
  return join(__dirname, __dirname.includes(`${join('dist', 'src')}`) ? '../../..' : '../..', 'ui');
}
