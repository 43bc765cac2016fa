// Resource TTLs per type with a real Envoy, proven by the order of events on
// Envoy's own clock (its log stamps), not by how long the test waited: Envoy
// drops a cluster no sooner than the TTL after the last message it got for
// it. With clusters and endpoints TTL'd, heartbeats keep them alive; after
// SIGKILL Envoy drops the clusters and keeps the TTL-less Listener, and a
// restarted hub restores traffic; an Envoy on SotW gets no TTL (X-TTL-5).
// With endpoints alone TTL'd, Envoy lets the assignment's TTL run out and
// keeps its endpoints (docs/envoy-lifecycle.md).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Envoy, logTimes } from '../helpers/envoy';
import { request, untilServedBy } from './harness';
import { CAP_MS, type Gateway, metrics, setup, TTL_ARGS, TTL_MS } from './lifecycle';
import { clientFailures, envoyFailures, openLoop, summary } from './open-loop';

/** Log lines: a Delta or SotW response of a type arriving, and Envoy applying a cluster removal or an empty EDS update. */
const RECEIVED = (type: string) =>
  new RegExp(`Received (?:DeltaDiscoveryResponse|gRPC message) for type\\.googleapis\\.com/envoy\\.config\\.${type} `);
const CLUSTER_REMOVED = /removing cluster web$/;
const EDS_EMPTY = /Missing ClusterLoadAssignment for web in onConfigUpdate\(\)/;
/** Envoy logs what this needs at debug level: xDS messages (config) and cluster changes (upstream). */
const ENVOY_LOG = ['--component-log-level', 'config:debug,upstream:debug'];

const STREAM_CLOSED = /gRPC config stream to xdshub closed/;

/**
 * On Envoy's clock: the last message of `type` before its stream to the hub
 * closed, and the first `event` after that; throws if one is missing.
 */
function lastMessageThen(envoy: Envoy, type: string, event: RegExp): { last: number; event: number } {
  const log = envoy.log();
  const closed = logTimes(log, STREAM_CLOSED)[0];
  assert.ok(closed !== undefined, 'Envoy logged no end of its stream to the hub');
  const at = logTimes(log, event).find((x) => x >= closed);
  assert.ok(at !== undefined, `no "${event.source}" in Envoy's log after the stream closed`);
  const last = logTimes(log, RECEIVED(type))
    .filter((x) => x <= closed)
    .pop();
  assert.ok(last !== undefined, `no ${type} message in Envoy's log before the stream closed`);
  return { last, event: at };
}

/** Whether `event` appears in Envoy's log after its stream to the hub closed. */
function afterClose(envoy: Envoy, event: RegExp): boolean {
  const log = envoy.log();
  const closed = logTimes(log, STREAM_CLOSED)[0];
  return closed !== undefined && logTimes(log, event).some((x) => x >= closed);
}

test('--resource-ttl on clusters and endpoints: heartbeats keep them over 3× the TTL; after SIGKILL Envoy drops the clusters no sooner than the TTL after the last heartbeat and keeps the rest; SotW Envoy gets no TTL; a restart restores traffic', async (t) => {
  const s = await setup([...TTL_ARGS, '--resource-ttl-types', 'clusters,endpoints'], ['delta', 'sotw'], ENVOY_LOG);
  const [delta, sotw] = s.gateways as [Gateway, Gateway];
  const traffic = [openLoop(delta.port, 'web', 50, delta.envoy), openLoop(sotw.port, 'web', 50, sotw.envoy)];
  try {
    // Over 3× the TTL on Envoy's clock since it got its cluster, with only heartbeats in between.
    const firstCluster = logTimes(delta.envoy.log(), RECEIVED('cluster.v3.Cluster'))[0]!;
    await delta.envoy.until(
      () => (logTimes(delta.envoy.log(), RECEIVED('cluster.v3.Cluster')).pop() ?? 0) - firstCluster > 3.5 * TTL_MS,
      'three and a half TTLs of heartbeats',
      CAP_MS,
    );
    assert.deepEqual(logTimes(delta.envoy.log(), CLUSTER_REMOVED), [], 'no cluster expired while the hub lived');
    const live = await metrics(s.hub().httpUrl);
    assert.match(live, /^xdshub_xds_heartbeats_total\{type="EDS",variant="delta"\} [1-9]/m, 'EDS heartbeats were sent');
    assert.match(live, /^xdshub_xds_heartbeats_total\{type="CDS",variant="delta"\} [1-9]/m, 'CDS heartbeats were sent');
    assert.doesNotMatch(live, /^xdshub_xds_heartbeats_total\{type="(LDS|RDS)"/m, 'listeners and routes carry no TTL');
    assert.doesNotMatch(
      live,
      /^xdshub_xds_heartbeats_total\{type="\w+",variant="sotw"\}/m,
      'Envoy on SotW takes no TTL, so no heartbeats (X-TTL-5)',
    );
    for (const [i, g] of [delta, sotw].entries()) {
      const c = traffic[i]!.counts;
      assert.equal(
        clientFailures(c),
        0,
        `while the hub lives every request is served: ${summary(['delta', 'sotw'][i]!, c)}`,
      );
      assert.equal(g.envoy.log().match(/Caught Segmentation fault/), null);
    }

    await s.hub().stop('SIGKILL');
    await delta.envoy.until(() => afterClose(delta.envoy, CLUSTER_REMOVED), "Envoy dropping the TTL'd cluster", CAP_MS);
    const { last, event } = lastMessageThen(delta.envoy, 'cluster.v3.Cluster', CLUSTER_REMOVED);
    t.diagnostic(`Delta Envoy dropped cluster web ${event - last} ms after the last message for it (TTL ${TTL_MS} ms)`);
    // Envoy's log stamps are whole milliseconds; its timer may round the TTL down by one.
    assert.ok(
      event - last >= TTL_MS - 2,
      `cluster web dropped ${event - last} ms after the last heartbeat: not before its TTL`,
    );
    assert.equal(
      (await request(delta.port, '/', { host: 'web' })).status,
      503,
      'the listener (no TTL) still answers; the cluster behind it is gone',
    );
    const dump = await delta.envoy.configDump();
    const clusters = dump.configs.find((c: any) => String(c['@type']).endsWith('ClustersConfigDump'));
    assert.ok(
      !(clusters.dynamic_active_clusters ?? []).some((c: any) => c.cluster.name === 'web'),
      'Cluster web (TTL) was dropped',
    );
    const listeners = dump.configs.find((c: any) => String(c['@type']).endsWith('ListenersConfigDump'));
    assert.ok(
      listeners.dynamic_listeners.some((l: any) => l.name.startsWith('edge-delta:')),
      'the gateway Listener (no TTL) is kept',
    );

    // The SotW Envoy has no TTL to run out: it keeps serving from its last configuration.
    await untilServedBy(sotw.envoy, sotw.port, 'life-a', { capMs: CAP_MS });
    assert.deepEqual(logTimes(sotw.envoy.log(), CLUSTER_REMOVED), [], 'the SotW Envoy dropped nothing');

    await s.restart();
    await untilServedBy(delta.envoy, delta.port, 'life-a', { capMs: CAP_MS });
  } finally {
    await Promise.all(traffic.map((l) => l.stop()));
  }
  t.diagnostic(summary('delta', traffic[0]!.counts));
  t.diagnostic(summary('sotw', traffic[1]!.counts));
  assert.equal(
    clientFailures(traffic[1]!.counts) + envoyFailures(traffic[1]!.counts.envoy),
    0,
    `SotW: ${summary('sotw', traffic[1]!.counts)}`,
  );
  for (const g of [delta, sotw]) assert.equal((await g.envoy.rejectedUpdates()).total, 0);
});

test('--resource-ttl on endpoints alone: Envoy lets the assignment expire no sooner than the TTL after the last heartbeat, and keeps routing to its endpoints', async (t) => {
  const s = await setup([...TTL_ARGS, '--resource-ttl-types', 'endpoints'], ['delta'], ENVOY_LOG);
  const { envoy, port } = s.gateways[0]!;
  await s.hub().stop('SIGKILL');
  await envoy.until(() => afterClose(envoy, EDS_EMPTY), "the assignment's TTL running out", CAP_MS);
  const { last, event } = lastMessageThen(envoy, 'endpoint.v3.ClusterLoadAssignment', EDS_EMPTY);
  t.diagnostic(`the ClusterLoadAssignment expired ${event - last} ms after the last message for it (TTL ${TTL_MS} ms)`);
  assert.ok(event - last >= TTL_MS - 2, `expired ${event - last} ms after the last heartbeat: not before its TTL`);
  // Envoy's EDS takes the expiry as an update without an assignment (update_empty) and keeps its hosts.
  assert.ok(
    ((await envoy.stats()).get('cluster.web.update_empty') ?? 0) >= 1,
    'Envoy counted the expiry as an empty EDS update',
  );
  await untilServedBy(envoy, port, 'life-a', { count: 10, capMs: CAP_MS });
});
