// Counters for the per-connection and per-token gRPC stream limits
// (--grpc-max-streams-per-connection, --subscribe-max-streams-per-token). A
// stream over the limit is refused at once with RESOURCE_EXHAUSTED naming the
// limit and its flag; counts drop when a stream ends, however it ends.
//
// Per connection the bound is held twice. The HTTP/2 SETTINGS the server
// sends (SETTINGS_MAX_CONCURRENT_STREAMS = limit + STREAM_HEADROOM) make a
// client keep the streams past it queued on its side, so a client opening
// 10,000 at once sends at most that many: the hub never holds (nor pays for)
// the rest. The streams between the limit and the SETTINGS bound, and those of
// a client that ignores the SETTINGS, are refused at the door (`admitStream`)
// before any per-stream work, with a status made once per counter.
import { status as GrpcStatus, type ServerOptions } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { HubError } from './errors';

export interface StreamCounter {
  /** Counts one stream under `key`, or throws RATE_LIMITED (gRPC RESOURCE_EXHAUSTED) past the limit. Returns release(). */
  enter(key: string): () => void;
  /** Counts one stream under `key` and returns release(), or undefined past the limit (nothing allocated). */
  tryEnter(key: string): (() => void) | undefined;
  /** Streams now counted under `key`. */
  count(key: string): number;
  /** The status a stream past the limit ends with (one object, shared). */
  readonly refusal: { readonly code: GrpcStatus; readonly details: string };
}

export function createStreamCounter(limit: number, describe: (limit: number) => string): StreamCounter {
  const counts = new Map<string, number>();
  const message = describe(limit);
  function tryEnter(key: string): (() => void) | undefined {
    const n = counts.get(key) ?? 0;
    if (n >= limit) return undefined;
    counts.set(key, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (counts.get(key) ?? 1) - 1;
      if (left <= 0) counts.delete(key);
      else counts.set(key, left);
    };
  }
  return {
    enter(key) {
      const release = tryEnter(key);
      if (!release) throw new HubError('RATE_LIMITED', message);
      return release;
    },
    tryEnter,
    count: (key) => counts.get(key) ?? 0,
    refusal: Object.freeze({ code: GrpcStatus.RESOURCE_EXHAUSTED, details: message }),
  };
}

/** One counter per gRPC connection (keyed by the peer address, which is unique per TCP connection), shared by Subscribe and xDS. */
export function connectionStreamCounter(limit: number): StreamCounter {
  return createStreamCounter(
    limit,
    (n) => `too many concurrent streams on this connection: at most ${n} (--grpc-max-streams-per-connection)`,
  );
}

/**
 * Streams a connection may have open past --grpc-max-streams-per-connection
 * in its HTTP/2 SETTINGS: room for the unary calls (Fetch) of a connection
 * full of long-lived streams, and for refusals to reach a client (so it learns
 * the limit from a RESOURCE_EXHAUSTED naming the flag) without the hub ever
 * taking in more than this many new streams at once.
 */
export const STREAM_HEADROOM = 64;

/** The grpc.Server options that bound streams per connection in HTTP/2 itself (see the top of this file). */
export function connectionStreamOptions(limit: number): Pick<ServerOptions, 'grpc.max_concurrent_streams'> {
  return { 'grpc.max_concurrent_streams': limit + STREAM_HEADROOM };
}

/** The part of a gRPC server call admission needs. */
interface DoorCall {
  getPeer(): string;
  emit(event: 'error', status: { code: GrpcStatus; details: string }): boolean;
}

/**
 * Admission at the door, first thing in a stream handler: counts the stream
 * under its connection and returns release(), or ends the call with the
 * counter's shared RESOURCE_EXHAUSTED status and returns undefined. No error
 * object, logger, timer or listener is made for a refused stream; `refused`
 * (a RefusalLog) only counts it.
 */
export function admitStream(
  counter: StreamCounter | undefined,
  call: DoorCall,
  refused?: () => void,
): (() => void) | undefined {
  if (!counter) return () => {};
  const release = counter.tryEnter(call.getPeer());
  if (release) return release;
  refused?.();
  call.emit('error', counter.refusal);
  return undefined;
}

/**
 * Refusals logged at most once per `everyMs` with the count since the last
 * line: a flood of refused streams must not become a flood of log lines.
 */
export function refusalLog(
  logger: Pick<Logger, 'warn'>,
  message: string,
  everyMs = 1000,
  clock: () => number = Date.now,
): () => void {
  let count = 0;
  let last = -Infinity;
  return () => {
    count++;
    const now = clock();
    if (now - last < everyMs) return;
    logger.warn({ refused: count }, message);
    count = 0;
    last = now;
  };
}
