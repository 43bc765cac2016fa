// Counters for the per-connection and per-token gRPC stream limits
// (--grpc-max-streams-per-connection, --subscribe-max-streams-per-token). A
// stream over the limit is refused at once with RESOURCE_EXHAUSTED naming the
// limit and its flag; counts drop when a stream ends, however it ends.
import { HubError } from './errors';

export interface StreamCounter {
  /** Counts one stream under `key`, or throws RATE_LIMITED (gRPC RESOURCE_EXHAUSTED) past the limit. Returns release(). */
  enter(key: string): () => void;
  /** Streams now counted under `key`. */
  count(key: string): number;
}

export function createStreamCounter(limit: number, describe: (limit: number) => string): StreamCounter {
  const counts = new Map<string, number>();
  return {
    enter(key) {
      const n = counts.get(key) ?? 0;
      if (n >= limit) throw new HubError('RATE_LIMITED', describe(limit));
      counts.set(key, n + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = (counts.get(key) ?? 1) - 1;
        if (left <= 0) counts.delete(key);
        else counts.set(key, left);
      };
    },
    count: (key) => counts.get(key) ?? 0,
  };
}

/** One counter per gRPC connection (keyed by the peer address, which is unique per TCP connection), shared by Subscribe and xDS. */
export function connectionStreamCounter(limit: number): StreamCounter {
  return createStreamCounter(limit, (n) => `too many concurrent streams on this connection: at most ${n} (--grpc-max-streams-per-connection)`);
}
