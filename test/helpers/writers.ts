// Concurrent HTTP writers for fault tests: each worker registers a fresh node per
// request (PUT /v1/catalog/register) against its hub, round robin over `urls`,
// and records every outcome — so a test can count what was acknowledged, what was
// refused and how, and whether anything was left without an answer.
import { letTimePass } from './until';

export interface WriteOutcome {
  node: string;
  url: string;
  /** HTTP status, or 'timeout' (no answer within timeoutMs: a hang) or 'error' (the connection failed). */
  status: number | 'timeout' | 'error';
  body: string;
  /** X-Consul-Index of an acknowledged write. */
  index?: bigint;
  started: number;
  ended: number;
}

export interface WritersOptions {
  urls: readonly string[];
  workers: number;
  /** Node names are `${prefix}-${worker}-${n}`. */
  prefix: string;
  /** A request not answered in this long counts as a hang. */
  timeoutMs?: number;
  /** Pause after a refused or failed write, so an outage is not a busy loop. */
  pauseAfterErrorMs?: number;
}

export interface Writers {
  readonly outcomes: readonly WriteOutcome[];
  /** Requests sent and not answered yet, with the time each was sent. */
  inFlight(): ReadonlyMap<string, number>;
  acked(): WriteOutcome[];
  /** Resolves once `predicate` holds over the outcomes so far (checked after each one). */
  until(predicate: (outcomes: readonly WriteOutcome[]) => boolean): Promise<void>;
  /** Stops sending; resolves when every worker's last request has its outcome. */
  stop(): Promise<void>;
}

export function startWriters(options: WritersOptions): Writers {
  const { urls, workers, prefix } = options;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const pause = options.pauseAfterErrorMs ?? 20;
  const outcomes: WriteOutcome[] = [];
  const inFlight = new Map<string, number>();
  const watchers = new Set<() => void>();
  let stopping = false;

  const record = (o: WriteOutcome) => {
    outcomes.push(o);
    for (const check of [...watchers]) check();
  };

  const worker = async (w: number) => {
    for (let n = 0; !stopping; n++) {
      const node = `${prefix}-${w}-${n}`;
      const url = urls[(w + n) % urls.length]!;
      const started = Date.now();
      inFlight.set(node, started);
      let outcome: WriteOutcome;
      try {
        const res = await fetch(`${url}/v1/catalog/register`, {
          method: 'PUT',
          body: JSON.stringify({
            Node: node,
            Address: '10.1.0.1',
            Service: { Service: 'fault', ID: node, Port: 8080 },
          }),
          signal: AbortSignal.timeout(timeoutMs),
        });
        const body = await res.text();
        outcome = { node, url, status: res.status, body, started, ended: Date.now() };
        if (res.status === 200) outcome.index = BigInt(res.headers.get('x-consul-index') ?? '0');
      } catch (err) {
        const timedOut = (err as Error).name === 'TimeoutError';
        outcome = { node, url, status: timedOut ? 'timeout' : 'error', body: String(err), started, ended: Date.now() };
      }
      inFlight.delete(node);
      record(outcome);
      if (outcome.status !== 200) await letTimePass(pause, 'a writer backs off after a failed write, as a client does');
    }
  };
  const done = Promise.all(Array.from({ length: workers }, (_, w) => worker(w)));

  return {
    outcomes,
    inFlight: () => inFlight,
    acked: () => outcomes.filter((o) => o.status === 200),
    until(predicate) {
      return new Promise((resolve) => {
        const check = () => {
          if (!predicate(outcomes)) return;
          watchers.delete(check);
          resolve();
        };
        watchers.add(check);
        check();
      });
    },
    async stop() {
      stopping = true;
      await done;
    },
  };
}
