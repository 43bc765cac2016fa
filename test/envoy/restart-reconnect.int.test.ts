// Envoy comes back fast after a hub restart, on SotW and on Delta, on the
// pinned Envoy and on an older release: the hub process (SQLite, same data
// dir, same ports) is stopped with SIGTERM, then killed with SIGKILL, while
// ~250 requests/s go through the Envoys to a local backend. No request fails;
// each Envoy is back in sync soon after the hub listens again (the bootstraps'
// 1 s reconnect back-off; the SotW Envoy at all only because the hub answers
// its reconnect-shaped first request, X-ACK-7); and a write made then reaches
// each Envoy's traffic. The figures are printed (docs/envoy-lifecycle.md, "Reconnecting
// after a hub restart"); the bounds asserted are generous guards.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Envoy } from '../helpers/envoy';
import { envoyBinaries } from './compat-envoy';
import { clientFailures, envoyFailures, openLoop, summary } from './open-loop';
import { CAP_MS, connectedState, inSyncSince, restartWorld, timedBackend, watchConnected } from './restart-world';

/** Requests per second over all the Envoys together. */
const TOTAL_RATE = 250;
/**
 * Guards, not targets: the targets (3 s, 1 s) are what docs/envoy.md holds the
 * printed figures to. With the cap, Envoys are back within ~0.4 s; with
 * Envoy's default back-off (up to 30 s) they took 3.4–13 s, past this guard.
 */
const RECONNECT_GUARD_MS = 6_000;
const WRITE_GUARD_MS = 5_000;

const TROUBLE = new RegExp(
  '^cluster\\.[^.]+\\.(upstream_cx_connect_fail|upstream_cx_connect_timeout|upstream_rq_retry' +
    '|upstream_cx_overflow|upstream_rq_pending_overflow|upstream_rq_timeout)$',
);

/** Envoy's nonzero counts of upstream connection failures and retries, by cluster (what a 503 was). */
async function upstreamTrouble(envoy: Envoy): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const [name, v] of await envoy.stats()) {
    if (v > 0 && TROUBLE.test(name)) out[name] = v;
  }
  return out;
}

interface Row {
  signal: string;
  label: string;
  /** The hub's listening line → the hub opened the stream that came back in sync. */
  hubMs: number;
  /** The hub's listening line → Envoy's control_plane.connected_state turned 1 for good (ADS only). */
  envoyMs: number | undefined;
  /** Write sent → the new backend's first request from this Envoy. */
  writeMs: number;
}

const NAME =
  'SIGTERM and SIGKILL restarts of the hub under 250 req/s: no request fails, ' +
  'SotW (ADS, per-type) and Delta Envoys of two releases reconnect within seconds, a write then reaches traffic';

test(NAME, async (t) => {
  const first = await timedBackend('restart-0');
  const ways = [
    { transport: 'sotw', ads: true },
    { transport: 'delta', ads: true },
    { transport: 'sotw', ads: false },
  ] as const;
  const w = await restartWorld(envoyBinaries(), ways, first);
  const rate = TOTAL_RATE / w.gateways.length;
  const loads = w.gateways.map((g) => ({ g, load: openLoop(g.port, g.nodeId, rate, g.envoy) }));
  const rows: Row[] = [];
  const lineLag: number[] = [];
  try {
    let n = 0;
    for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
      const code = await w.stop(signal);
      assert.equal(code, signal === 'SIGTERM' ? 0 : 'SIGKILL');
      // control_plane.connected_state follows the ADS stream only (per-type streams leave it alone).
      const adsGateways = w.gateways.filter((g) => g.ads);
      for (const g of adsGateways) {
        await g.envoy.until(async () => (await connectedState(g.envoy)) === 0, `${g.label} sees the hub gone`, CAP_MS);
      }
      // Traffic goes on while the hub is away: Envoy keeps its last configuration.
      for (const { g, load } of loads) {
        const okBefore = load.counts.ok;
        await g.envoy.until(
          () => load.counts.ok >= okBefore + 20,
          `${g.label}: twenty requests served while the hub is away`,
          CAP_MS,
        );
      }
      const watch = watchConnected(adsGateways);
      const { hub, listeningAt, grpcOpenAt } = await w.restart();
      // Figures count from the hub's listening line; its gRPC port takes connections a little before it.
      const from = listeningAt;
      lineLag.push(listeningAt - grpcOpenAt);
      const back = new Map<string, number>();
      for (const g of w.gateways) {
        const what = () => `${g.label} back in sync on the restarted hub (hub log: ${hub.stderr().slice(-800)})`;
        back.set(g.label, await g.envoy.until(() => inSyncSince(hub.httpUrl, g.nodeId), what, CAP_MS));
      }
      for (const g of adsGateways)
        await g.envoy.until(() => watch.at.has(g.label), `${g.label}: connected_state 1`, CAP_MS);
      await watch.stop();
      // A write once every Envoy is back: a new backend joins `web`.
      const next = await timedBackend(`restart-${++n}`);
      const writeAt = Date.now();
      await w.register(next);
      for (const g of w.gateways)
        await g.envoy.until(() => next.firstHitAt.has(g.nodeId), `${g.label}: traffic reaches ${next.name}`, CAP_MS);
      for (const g of w.gateways) {
        const envoyAt = watch.at.get(g.label);
        const envoyMs = envoyAt === undefined ? undefined : envoyAt - from;
        rows.push({
          signal,
          label: g.label,
          hubMs: back.get(g.label)! - from,
          envoyMs,
          writeMs: next.firstHitAt.get(g.nodeId)! - writeAt,
        });
      }
    }
  } finally {
    for (const { load } of loads) await load.stop();
  }
  t.diagnostic(`the hub printed its listening line ${lineLag.join(' / ')} ms after its gRPC port took a connection`);
  t.diagnostic('signal | Envoy | hub listening → back in sync (hub) | → connected_state 1 (Envoy) | write → traffic');
  for (const r of rows) {
    const envoy = r.envoyMs === undefined ? '–' : `${r.envoyMs} ms`;
    t.diagnostic(`${r.signal} | ${r.label} | ${r.hubMs} ms | ${envoy} | ${r.writeMs} ms`);
  }
  for (const { g, load } of loads) {
    t.diagnostic(summary(`${g.label} at ${Math.round(rate)} req/s`, load.counts));
    t.diagnostic(`${g.label} upstream: ${JSON.stringify(await upstreamTrouble(g.envoy))}`);
    assert.equal(clientFailures(load.counts), 0, summary(g.label, load.counts));
    assert.equal(envoyFailures(load.counts.envoy), 0, `Envoy's own counts: ${summary(g.label, load.counts)}`);
    assert.ok(load.counts.sent >= rate * 2, `${g.label}: the load ran (${load.counts.sent} requests)`);
    assert.equal((await g.envoy.rejectedUpdates()).total, 0, `${g.label} rejected no update`);
  }
  for (const r of rows) {
    const back = `${r.signal} ${r.label}: back ${r.hubMs} ms (hub) / ${r.envoyMs} ms (Envoy) after the hub listened`;
    assert.ok(Math.max(r.hubMs, r.envoyMs ?? 0) <= RECONNECT_GUARD_MS, back);
    assert.ok(r.writeMs <= WRITE_GUARD_MS, `${r.signal} ${r.label}: a write took ${r.writeMs} ms to reach traffic`);
  }
});
