// What every route module gets: the catalog, config, metrics, the hub's agent
// identity and the set of blocking queries in flight (aborted on close).
import type pino from 'pino';
import type { Catalog } from '../catalog/catalog';
import type { Config } from '../config';
import type { ConnectCa } from '../connect/manager';
import type { ViewKey, ViewStore } from '../materializer/types';
import type { HubMetrics } from '../metrics';
import type { HttpAcl } from './acl';
import type { AgentIdentity } from './translate/agent';

export interface HttpDeps {
  catalog: Catalog;
  config: Config;
  logger: pino.Logger;
  metrics: HubMetrics;
  /** Materialized views: the streaming backend for health, catalog service and config reads. */
  views: ViewStore;
  /** The index a caught-up view of `key` holds at least (its subject's last applied change). */
  viewTarget: (key: ViewKey) => bigint;
  /** ACLs (src/http/acl.ts); absent = off. */
  acl?: HttpAcl;
  /** TLS for the HTTP server (src/tls.ts); absent = plain HTTP. */
  https?: import('node:https').ServerOptions;
  /** The (topic, subject) keys the entry at an index changed, for the X-Xdshub-Changed header of writes (src/fanout/changed.ts). */
  changedKeys?: (index: bigint) => string | undefined;
  /** The built-in CA; without it the /v1/connect/ca and leaf routes are not served. */
  connect?: ConnectCa;
  /**
   * Whether writes can be taken now (the log is reachable). While not, the hub says
   * it has no leader, as a Consul server does without quorum. Default: always.
   */
  hasLeader?: () => boolean;
  /**
   * For a log several hubs share: the newest index in the log, which this hub may
   * not have applied yet; undefined when the log cannot be asked now. A blocking
   * query whose index is ahead of this hub but within the log then waits for
   * this hub to catch up (blocking.ts, `blockingParams`). Absent: this hub is the
   * log's only writer, so an index ahead of it is from another log.
   */
  logHead?: () => Promise<bigint | undefined>;
}

export interface HttpContext extends HttpDeps {
  acl: HttpAcl;
  identity: AgentIdentity;
  /** One controller per blocking query in flight; the app aborts them all before it closes. */
  waits: Set<AbortController>;
}
