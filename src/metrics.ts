// Prometheus metrics on a registry of our own (never prom-client's global one),
// so several hubs in one test process don't collide. Other modules register
// their metrics on `metrics.registry`.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

export interface HubMetrics {
  readonly registry: Registry;
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly catalogWrites: Counter<'type' | 'outcome'>;
  /** Seconds from submit to applied (append + durable commit + apply). */
  readonly writeLatency: Histogram<'type'>;
  readonly lastIndex: Gauge;
  /** Local writes that passed the check before append and were refused when applied (a race with another write). */
  readonly refusedAtApply: Counter<'type'>;
  /** Where the last-index gauge reads from at scrape time (set once the catalog exists). */
  setIndexSource(read: () => bigint): void;
  /** Where the blocking-queries gauge reads from at scrape time (set by the HTTP app). */
  setBlockingSource(read: () => number): void;
}

export function createMetrics(options: { defaultMetrics?: boolean } = {}): HubMetrics {
  const registry = new Registry();
  if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry, prefix: 'xdshub_' });

  let indexSource: (() => bigint) | undefined;
  const lastIndex = new Gauge({
    name: 'xdshub_log_last_index',
    help: 'Index of the last log entry applied by this hub',
    registers: [registry],
    collect() {
      if (indexSource) this.set(Number(indexSource()));
    },
  });

  let blockingSource: (() => number) | undefined;
  new Gauge({
    name: 'xdshub_http_blocking_queries',
    help: 'Blocking queries (catalog and view reads) waiting in their wait window now',
    registers: [registry],
    collect() {
      this.set(blockingSource?.() ?? 0);
    },
  });

  return {
    registry,
    lastIndex,
    httpRequests: new Counter({
      name: 'xdshub_http_requests_total',
      help: 'HTTP requests by method, route pattern and status code',
      labelNames: ['method', 'route', 'status'] as const,
      registers: [registry],
    }),
    catalogWrites: new Counter({
      name: 'xdshub_catalog_writes_total',
      help: 'Catalog commands submitted, by command type and outcome (ok, refused, error)',
      labelNames: ['type', 'outcome'] as const,
      registers: [registry],
    }),
    writeLatency: new Histogram({
      name: 'xdshub_catalog_write_seconds',
      help: 'Time from submit until the command is durable in the log and applied',
      labelNames: ['type'] as const,
      buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    refusedAtApply: new Counter({
      name: 'xdshub_catalog_refused_at_apply_total',
      help: 'Writes accepted by the check before append but refused when their log entry was applied, by command type',
      labelNames: ['type'] as const,
      registers: [registry],
    }),
    setIndexSource(read) {
      indexSource = read;
    },
    setBlockingSource(read) {
      blockingSource = read;
    },
  };
}
