// What every route module gets: the catalog, config, metrics, the hub's agent
// identity and the set of blocking queries in flight (aborted on close).
import type pino from 'pino';
import type { Catalog } from '../catalog/catalog';
import type { Config } from '../config';
import type { HubMetrics } from '../metrics';
import type { AgentIdentity } from './translate/agent';

export interface HttpDeps {
  catalog: Catalog;
  config: Config;
  logger: pino.Logger;
  metrics: HubMetrics;
}

export interface HttpContext extends HttpDeps {
  identity: AgentIdentity;
  /** One controller per blocking query in flight; the app aborts them all before it closes. */
  waits: Set<AbortController>;
}
