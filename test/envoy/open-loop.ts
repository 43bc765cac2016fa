// An open-loop HTTP client for the Envoy tests and benches: each request
// leaves on its schedule whether or not earlier ones have answered, and every
// answer is sorted — a 200 from a backend, a 5xx, another status, a connection
// error (reset, refused, hang-up), or the client giving up.
//
// A loaded machine must not turn the client's own slowness into a failure of
// Envoy, nor hide one. Two things keep them apart:
// - the client waits CLIENT_GIVE_UP_MS for an answer, three times Envoy's
//   longest own deadline (15 s route timeout; the connect timeout is 5 s), so
//   whatever Envoy does to a request (a 503 for a missing cluster, a 504, a
//   reset) reaches the client as that, long before the client gives up;
// - Envoy is asked too: its listener's own counts of what it answered (5xx,
//   4xx) and of the requests it reset or cut (`downstream_rq_tx_reset`,
//   `downstream_cx_destroy_local_active_rq`) over the run.
import http from 'node:http';
import { setTimeout as sleep, setImmediate as yieldToLoop } from 'node:timers/promises';
import type { Envoy } from '../helpers/envoy';

export const CLIENT_GIVE_UP_MS = 45_000;

export interface LoadCounts {
  sent: number;
  ok: number;
  status5xx: number;
  otherStatus: number;
  /** Resets, refused connections, hang-ups: answers that are not HTTP answers. */
  connectionErrors: number;
  /** Requests the client gave up on after CLIENT_GIVE_UP_MS. */
  clientTimeouts: number;
  /** Slowest answer seen, ms (a starved machine shows here). */
  maxMs: number;
  /** Answers per backend name. */
  by: Record<string, number>;
  /** The first few failures, for the message. */
  samples: string[];
  /** What Envoy itself counted over the run (only when an Envoy was given). */
  envoy?: EnvoyAnswers;
}

/** Envoy's gateway listeners' own counts (sums over every `http.ingress_*` connection manager). */
export interface EnvoyAnswers {
  rq2xx: number;
  rq4xx: number;
  rq5xx: number;
  /** Requests Envoy reset towards the client. */
  txReset: number;
  /** Connections Envoy closed with a request still on them. */
  localCloseActive: number;
  /** Requests the client reset (a client giving up shows here, not above). */
  rxReset: number;
}

const ANSWER_STATS: Record<string, keyof EnvoyAnswers> = {
  downstream_rq_2xx: 'rq2xx',
  downstream_rq_4xx: 'rq4xx',
  downstream_rq_5xx: 'rq5xx',
  downstream_rq_tx_reset: 'txReset',
  downstream_cx_destroy_local_active_rq: 'localCloseActive',
  downstream_rq_rx_reset: 'rxReset',
};

export async function envoyAnswers(envoy: Envoy): Promise<EnvoyAnswers> {
  const out: EnvoyAnswers = { rq2xx: 0, rq4xx: 0, rq5xx: 0, txReset: 0, localCloseActive: 0, rxReset: 0 };
  for (const [name, value] of await envoy.stats()) {
    const m = /^http\.ingress_[^.]+\.(\w+)$/.exec(name);
    const key = m && ANSWER_STATS[m[1]!];
    if (key) out[key] += value;
  }
  return out;
}

/** Failures Envoy itself counted: any 4xx/5xx it answered, any request it reset or cut. */
export function envoyFailures(a: EnvoyAnswers | undefined): number {
  return a ? a.rq4xx + a.rq5xx + a.txReset + a.localCloseActive : 0;
}

/** Every request that did not end in a 200 from a backend, as the client saw it. */
export function clientFailures(c: LoadCounts): number {
  return c.status5xx + c.otherStatus + c.connectionErrors + c.clientTimeouts;
}

/** Open loop at `rate` requests/s until stop(); resolves the counts once every request has answered. */
export function openLoop(port: number, host: string, rate: number, envoy?: Envoy) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const counts: LoadCounts = {
    sent: 0,
    ok: 0,
    status5xx: 0,
    otherStatus: 0,
    connectionErrors: 0,
    clientTimeouts: 0,
    maxMs: 0,
    by: {},
    samples: [],
  };
  const inflight = new Set<Promise<void>>();
  const sample = (s: string) => {
    if (counts.samples.length < 5) counts.samples.push(s);
  };
  let on = true;
  const one = () =>
    new Promise<void>((resolve) => {
      counts.sent++;
      const started = performance.now();
      const done = () => {
        counts.maxMs = Math.max(counts.maxMs, performance.now() - started);
        resolve();
      };
      let gaveUp = false;
      const req = http.request(
        { host: '127.0.0.1', port, path: '/', agent, headers: { host }, timeout: CLIENT_GIVE_UP_MS },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (body += d));
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            if (status === 200) {
              counts.ok++;
              counts.by[body] = (counts.by[body] ?? 0) + 1;
            } else {
              if (status >= 500) counts.status5xx++;
              else counts.otherStatus++;
              sample(`${status} ${body.slice(0, 80)}`);
            }
            done();
          });
        },
      );
      req.on('timeout', () => {
        gaveUp = true;
        req.destroy(new Error(`no answer within ${CLIENT_GIVE_UP_MS} ms`));
      });
      req.on('error', (err) => {
        if (gaveUp) counts.clientTimeouts++;
        else counts.connectionErrors++;
        sample(`error ${err.message}`);
        done();
      });
      req.end();
    });
  const before = envoy ? envoyAnswers(envoy) : undefined;
  const started = performance.now();
  void (async () => {
    await before;
    for (let i = 0; on; i++) {
      const p = one();
      inflight.add(p);
      void p.then(() => inflight.delete(p));
      // The schedule, not the answers, sets the pace (open loop). Behind schedule
      // (a starved process), catch up in bursts, letting answers in between.
      const wait = started + ((i + 1) * 1000) / rate - performance.now();
      if (wait > 0) await sleep(wait);
      else if (i % 16 === 15) await yieldToLoop();
    }
  })();
  return {
    counts,
    async stop(): Promise<LoadCounts> {
      on = false;
      await sleep(1);
      await Promise.all([...inflight]);
      agent.destroy();
      if (envoy && before) {
        const [a, b] = [await before, await envoyAnswers(envoy)];
        counts.envoy = Object.fromEntries(
          Object.entries(b).map(([k, v]) => [k, v - a[k as keyof EnvoyAnswers]]),
        ) as unknown as EnvoyAnswers;
      }
      return counts;
    },
  };
}

/**
 * Resolves once `name` has answered `n` more requests of a running open loop
 * with no other backend answering in between: Envoy has applied the change
 * that sends everything to `name`. Awaited, so a slow machine only waits longer.
 */
export async function untilOnly(envoy: Envoy, counts: LoadCounts, name: string, n = 20): Promise<void> {
  let base = { ...counts.by };
  await envoy.until(
    () => {
      if (Object.keys(counts.by).some((k) => k !== name && counts.by[k] !== base[k])) base = { ...counts.by };
      return (counts.by[name] ?? 0) - (base[name] ?? 0) >= n;
    },
    () => `only ${name} answering (${JSON.stringify(counts.by)})`,
  );
}

export function summary(name: string, c: LoadCounts): string {
  const e = c.envoy;
  return (
    `${name}: sent ${c.sent}, 200 ${c.ok}, 5xx ${c.status5xx}, other ${c.otherStatus}, connection errors ${c.connectionErrors}, ` +
    `client gave up ${c.clientTimeouts}; slowest ${Math.round(c.maxMs)} ms; by backend ${JSON.stringify(c.by)}` +
    (e
      ? `; Envoy counted 2xx ${e.rq2xx}, 4xx ${e.rq4xx}, 5xx ${e.rq5xx}, resets it sent ${e.txReset}, connections it cut ${e.localCloseActive}, client resets ${e.rxReset}`
      : '') +
    (c.samples.length ? `; first failures ${JSON.stringify(c.samples)}` : '')
  );
}
