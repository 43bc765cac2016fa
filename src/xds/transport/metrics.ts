// Prometheus metrics of the xDS transport, on the registry the caller passes
// (a private one otherwise, so several servers in one process do not collide).
import { Counter, Gauge, type MetricValueWithName, Registry } from 'prom-client';

export interface XdsMetrics {
  readonly registry: Registry;
  readonly streams: Gauge<'variant' | 'transport' | 'api'>;
  readonly subscriptions: Gauge<'variant' | 'type'>;
  readonly pushes: Counter<'type' | 'variant'>;
  readonly heartbeats: Counter<'type' | 'variant'>;
  readonly nacks: Counter<'type'>;
  /** Resources on the wire per response (Delta: changed ones and removals; SotW: the set sent). */
  readonly resourcesSent: Counter<'type' | 'variant'>;
  readonly rejectedStreams: Counter<never>;
  /** Seconds from a change reaching the server to the response that carries it being written. */
  readonly pushLatency: LatencyHistogram;
  /**
   * One response written (`pushes` + 1, `resourcesSent` + `resources`). Counted
   * in plain numbers and added to the two counters when they are read: a push
   * to N streams would otherwise hash the same labels 2N times.
   */
  countPush(type: string, variant: 'sotw' | 'delta', resources: number): void;
}

interface Tally {
  readonly labels: { type: string; variant: string };
  pushes: number;
  resources: number;
}

/** `countSubscriptions` is read at scrape time: live streams by variant and type. */
export function createXdsMetrics(
  registry: Registry | undefined,
  countSubscriptions: () => Iterable<{ variant: string; type: string; count: number }>,
): XdsMetrics {
  const reg = registry ?? new Registry();
  const registers = [reg];
  const tallies = { sotw: new Map<string, Tally>(), delta: new Map<string, Tally>() };
  function* allTallies(): Iterable<Tally> {
    yield* tallies.sotw.values();
    yield* tallies.delta.values();
  }
  return {
    countPush(type, variant, resources) {
      let t = tallies[variant].get(type);
      if (!t) tallies[variant].set(type, (t = { labels: { type, variant }, pushes: 0, resources: 0 }));
      t.pushes++;
      t.resources += resources;
    },
    registry: reg,
    streams: new Gauge({
      name: 'xdshub_xds_streams',
      help: 'Open xDS streams by variant (sotw, delta), transport (ads or the per-type service) and API version',
      labelNames: ['variant', 'transport', 'api'],
      registers,
    }),
    subscriptions: new Gauge({
      name: 'xdshub_xds_stream_types',
      help: 'Open xDS streams by variant and resource type requested',
      labelNames: ['variant', 'type'],
      registers,
      collect() {
        this.reset();
        for (const s of countSubscriptions()) this.set({ variant: s.variant, type: s.type }, s.count);
      },
    }),
    pushes: new Counter({
      name: 'xdshub_xds_pushes_total',
      help: 'xDS responses written (heartbeats not included)',
      labelNames: ['type', 'variant'],
      registers,
      collect() {
        for (const t of allTallies()) {
          if (t.pushes > 0) this.inc(t.labels, t.pushes);
          t.pushes = 0;
        }
      },
    }),
    resourcesSent: new Counter({
      name: 'xdshub_xds_resources_sent_total',
      help: 'Resources (and Delta removals) carried by xDS responses, heartbeats not included',
      labelNames: ['type', 'variant'],
      registers,
      collect() {
        for (const t of allTallies()) {
          if (t.resources > 0) this.inc(t.labels, t.resources);
          t.resources = 0;
        }
      },
    }),
    heartbeats: new Counter({
      name: 'xdshub_xds_heartbeats_total',
      help: 'TTL heartbeat responses written',
      labelNames: ['type', 'variant'],
      registers,
    }),
    nacks: new Counter({
      name: 'xdshub_xds_nacks_total',
      help: 'Responses rejected by clients',
      labelNames: ['type'],
      registers,
    }),
    rejectedStreams: new Counter({
      name: 'xdshub_xds_streams_rejected_total',
      help: 'New xDS streams refused at a capacity bound (--xds-max-streams, or a nearly full heap)',
      registers,
    }),
    pushLatency: latencyHistogram(reg, {
      name: 'xdshub_xds_push_latency_seconds',
      help: 'From a resource change reaching the xDS server to the response that carries it being written',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    }),
  };
}

export interface LatencyHistogram {
  observe(type: string, variant: string, seconds: number): void;
  /** What a scrape shows, as prom-client's Histogram gives it (tests). */
  get(): Promise<{
    name: string;
    help: string;
    type: 'histogram';
    values: MetricValueWithName<string>[];
    aggregator: 'sum';
  }>;
}

interface LatencyTally {
  readonly type: string;
  readonly variant: string;
  /** Per bucket (and one past the last bound), not cumulative. */
  readonly counts: number[];
  sum: number;
  count: number;
}

/**
 * A histogram by type and variant, counted in plain numbers and exposed as
 * prom-client's Histogram exposes one (`_bucket` with `le`, `_sum`, `_count`).
 * Every response written observes it: prom-client's own validates and hashes
 * the labels object on each call, which a profile of one change pushed to
 * 1,000 streams put at 2–3% of the hub's main thread (bench/NOTES.md, #26).
 */
function latencyHistogram(
  reg: Registry,
  opts: { name: string; help: string; buckets: readonly number[] },
): LatencyHistogram {
  const tallies = new Map<string, Map<string, LatencyTally>>();
  const { name, help, buckets } = opts;
  const histogram: LatencyHistogram = {
    observe(type, variant, seconds) {
      let byVariant = tallies.get(type);
      if (!byVariant) tallies.set(type, (byVariant = new Map()));
      let t = byVariant.get(variant);
      if (!t) byVariant.set(variant, (t = { type, variant, counts: buckets.map(() => 0).concat(0), sum: 0, count: 0 }));
      let i = 0;
      while (i < buckets.length && seconds > buckets[i]!) i++;
      t.counts[i]!++;
      t.sum += seconds;
      t.count++;
    },
    async get() {
      const values: MetricValueWithName<string>[] = [];
      for (const byVariant of tallies.values()) {
        for (const t of byVariant.values()) {
          const labels = { type: t.type, variant: t.variant };
          let acc = 0;
          buckets.forEach((le, i) => {
            acc += t.counts[i]!;
            values.push({ labels: { le, ...labels }, value: acc, metricName: `${name}_bucket` });
          });
          values.push({ labels: { le: '+Inf', ...labels }, value: t.count, metricName: `${name}_bucket` });
          values.push({ labels, value: t.sum, metricName: `${name}_sum` });
          values.push({ labels, value: t.count, metricName: `${name}_count` });
        }
      }
      return {
        name,
        help,
        type: 'histogram' as const,
        values,
        aggregator: 'sum',
      };
    },
  };
  reg.registerMetric({ name, help, get: histogram.get, reset: () => tallies.clear() } as unknown as Parameters<
    Registry['registerMetric']
  >[0]);
  return histogram;
}
