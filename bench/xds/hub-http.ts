// The bench parent as an HTTP client of the hub: changes are catalog writes
// through the HTTP API, and t0 is the moment the write's acknowledgement (the
// HTTP response) has arrived — what a user of the API sees.
//
// Writes go over a fixed pool of keep-alive connections, opened before the
// writes start (`warm`), as an API client with a connection pool does. Opening
// a connection per outstanding write instead (what `fetch` does when every
// connection is busy) measures the hub's accept queue, not its writes: Node
// accepts one new connection per event-loop turn, and under churn a turn of
// the hub lasts tens of milliseconds, so 256 connections opened in a burst
// waited up to 19 s to be accepted (bench/NOTES.md, "Churn").
import { Agent, request } from 'node:http';
import { type ChurnChange, now, pct } from './protocol';

const addressOf = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

export interface HubWriter {
  /** Opens the pool's connections (one request on each, all at once) and waits for them. */
  warm(): Promise<void>;
  /** Moves service `i`'s one instance to its next port; resolves at the acknowledgement. */
  change(i: number): Promise<ChurnChange>;
  close(): void;
}

/** `connections`: the pool's size; 0 opens a new connection whenever every open one is busy (no limit). */
export function hubWriter(httpUrl: string, connections = 32): HubWriter {
  const url = new URL(httpUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: connections > 0 ? connections : Infinity });
  const ports = new Map<number, number>();
  const send = (method: string, path: string, body?: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, method, path, agent }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  return {
    async warm() {
      await Promise.all(Array.from({ length: connections }, () => send('GET', '/v1/status/leader')));
    },
    async change(i) {
      const port = (ports.get(i) ?? 8080) + 1;
      ports.set(i, port);
      const res = await send(
        'PUT',
        '/v1/catalog/register',
        JSON.stringify({
          Node: `node-${i}`,
          Address: addressOf(i),
          Datacenter: 'dc1',
          SkipNodeUpdate: true,
          Service: { ID: `svc-${i}-1`, Service: `svc-${i}`, Port: port },
        }),
      );
      const at = now();
      if (res.status !== 200) throw new Error(`PUT /v1/catalog/register: ${res.status} ${res.body}`);
      return { name: `svc-${i}`, port, at };
    },
    close: () => agent.destroy(),
  };
}

export interface Churned {
  changes: ChurnChange[];
  /** HTTP write latency (ms), sorted. */
  latencies: number[];
  seconds: number;
}

/**
 * `rate` writes per second for `seconds`, to services 0, 1, 2, … in turn (so
 * two writes to one service are never in flight together and its ports only
 * grow), at most `maxInFlight` outstanding.
 */
export async function churn(
  writer: HubWriter,
  services: number,
  rate: number,
  seconds: number,
  maxInFlight = 256,
): Promise<Churned> {
  const changes: ChurnChange[] = [];
  const latencies: number[] = [];
  const start = now();
  let issued = 0;
  let inFlight = 0;
  const busy = new Set<number>();
  const pending = new Set<Promise<void>>();
  while (now() - start < seconds * 1000) {
    const due = Math.floor(((now() - start) / 1000) * rate);
    while (issued < due && inFlight < maxInFlight && !busy.has(issued % services)) {
      const i = issued++ % services;
      const t = now();
      inFlight++;
      busy.add(i);
      const p = writer
        .change(i)
        .then((c) => {
          changes.push(c);
          latencies.push(c.at - t);
        })
        .finally(() => {
          inFlight--;
          busy.delete(i);
          pending.delete(p);
        });
      pending.add(p);
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  await Promise.all(pending);
  return { changes, latencies: latencies.sort((a, b) => a - b), seconds: (now() - start) / 1000 };
}

/** GETs `path` back to back (`gapMs` apart) until `stop` resolves; returns latencies (ms), sorted. */
export async function probe(
  httpUrl: string,
  path: string,
  stop: Promise<unknown>,
  gapMs = 25,
): Promise<{ latencies: number[]; failures: number }> {
  let done = false;
  void stop.then(() => (done = true));
  const latencies: number[] = [];
  let failures = 0;
  while (!done) {
    const t = now();
    try {
      const res = await fetch(`${httpUrl}${path}`);
      await res.arrayBuffer();
      if (!res.ok) failures++;
    } catch {
      failures++;
    }
    latencies.push(now() - t);
    await new Promise((r) => setTimeout(r, gapMs));
  }
  return { latencies: latencies.sort((a, b) => a - b), failures };
}

export const summary = (sorted: readonly number[]) =>
  `p50 ${pct(sorted, 50).toFixed(1)} ms, p99 ${pct(sorted, 99).toFixed(1)} ms, max ${(sorted.at(-1) ?? NaN).toFixed(1)} ms (${sorted.length})`;
