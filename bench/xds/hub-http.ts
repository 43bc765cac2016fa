// The bench parent as an HTTP client of the hub: changes are catalog writes
// through the HTTP API, and t0 is the moment the write's acknowledgement (the
// HTTP response) has arrived — what a user of the API sees.
import { now, pct, type ChurnChange } from './protocol';

const addressOf = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

export interface HubWriter {
  /** Moves service `i`'s one instance to its next port; resolves at the acknowledgement. */
  change(i: number): Promise<ChurnChange>;
}

export function hubWriter(httpUrl: string): HubWriter {
  const ports = new Map<number, number>();
  return {
    async change(i) {
      const port = (ports.get(i) ?? 8080) + 1;
      ports.set(i, port);
      const res = await fetch(`${httpUrl}/v1/catalog/register`, {
        method: 'PUT',
        body: JSON.stringify({ Node: `node-${i}`, Address: addressOf(i), Datacenter: 'dc1', SkipNodeUpdate: true, Service: { ID: `svc-${i}-1`, Service: `svc-${i}`, Port: port } }),
      });
      const body = await res.text();
      const at = now();
      if (!res.ok) throw new Error(`PUT /v1/catalog/register: ${res.status} ${body}`);
      return { name: `svc-${i}`, port, at };
    },
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
export async function churn(writer: HubWriter, services: number, rate: number, seconds: number, maxInFlight = 256): Promise<Churned> {
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
      const p = writer.change(i).then((c) => {
        changes.push(c);
        latencies.push(c.at - t);
      }).finally(() => {
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
export async function probe(httpUrl: string, path: string, stop: Promise<unknown>, gapMs = 25): Promise<{ latencies: number[]; failures: number }> {
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
