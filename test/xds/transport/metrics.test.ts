// The push-latency histogram is counted in plain numbers (metrics.ts
// latencyHistogram); what a scrape shows must be what prom-client's Histogram
// shows for the same observations.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { Histogram, Registry } from 'prom-client';
import { createXdsMetrics } from '../../../src/xds/transport/metrics';

const NAME = 'xdshub_xds_push_latency_seconds';
const lines = (text: string) => text.split('\n').filter(Boolean).sort();

test('push latency histogram: a scrape reads as prom-client Histogram would, for any observations', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(
        fc.tuple(
          fc.constantFrom('CDS', 'EDS', 'LDS', 'RDS'),
          fc.constantFrom('sotw', 'delta'),
          fc.oneof(
            fc.double({ min: -1, max: 20, noNaN: true }),
            fc.constantFrom(0, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5),
            fc.integer({ min: 0, max: 6000 }).map((ms) => ms / 1000),
          ),
        ),
        { maxLength: 60 },
      ),
      async (observations) => {
        const ours = new Registry();
        const metrics = createXdsMetrics(ours, () => []);
        const theirs = new Registry();
        const reference = new Histogram({
          name: NAME,
          help: 'From a resource change reaching the xDS server to the response that carries it being written',
          labelNames: ['type', 'variant'],
          buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
          registers: [theirs],
        });
        for (const [type, variant, seconds] of observations) {
          metrics.pushLatency.observe(type, variant, seconds);
          reference.observe({ type, variant }, seconds);
        }
        assert.deepEqual(
          lines(await ours.getSingleMetricAsString(NAME)),
          lines(await theirs.getSingleMetricAsString(NAME)),
        );
      },
    ),
    { numRuns: 300 },
  );
});
