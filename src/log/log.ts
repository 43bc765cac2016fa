// The ordered log: the only source of truth. Every accepted change is one entry;
// entries get strictly increasing, gap-free indexes starting at 1.
// The log knows nothing about what an entry means (payloads are opaque strings).
import type { HubError } from '../errors';
import type { StoreKind } from './store-kinds';

export interface LogEntry {
  readonly index: bigint;
  /** Opaque payload; the catalog stores a JSON-encoded command. */
  readonly payload: string;
}

export interface LogSnapshot {
  /** The state below includes every entry up to and including this index. */
  readonly index: bigint;
  readonly state: string;
}

export interface Log {
  readonly kind: StoreKind;
  /**
   * Appends payloads in order. Resolves once they are durable for this store,
   * with one index per payload (contiguous, each greater than every earlier one).
   * Appends that arrive in one event-loop turn may share one commit (group commit).
   */
  append(payloads: readonly string[]): Promise<bigint[]>;
  /**
   * Entries with index >= from, ascending, at most `limit`. Throws LOG_COMPACTED if `from` was compacted away.
   * `from` <= 0n reads from the start (there is no entry 0).
   */
  read(from: bigint, limit?: number): Promise<LogEntry[]>;
  /**
   * Every entry with index >= from, in order, then new ones as they are appended,
   * until `signal` aborts (the iterator then ends without error) or the log closes.
   * Throws LOG_COMPACTED if `from` is older than the first retained entry.
   */
  tail(from: bigint, signal: AbortSignal): AsyncIterable<LogEntry>;
  /** Index of the newest entry, 0n when empty. */
  lastIndex(): Promise<bigint>;
  /** Index of the oldest retained entry (1n when nothing was compacted; lastIndex+1 when empty after compaction). */
  firstIndex(): Promise<bigint>;
  /** The newest saved state snapshot, if any. */
  loadSnapshot(): Promise<LogSnapshot | undefined>;
  /**
   * Saves a state snapshot taken at `snapshot.index`, then drops every entry with
   * index <= `snapshot.index - keepTail`: at most `keepTail` entries at or below the
   * snapshot stay (a bounded tail for readers that resume), and everything after it.
   * Throws INVALID_ARGUMENT for a snapshot beyond lastIndex() or older than the saved one.
   */
  compact(snapshot: LogSnapshot, keepTail: number): Promise<void>;
  /**
   * For logs shared by several processes: resolves true when this process may compact
   * now (no other is compacting), false when another is. The claim ends with the next
   * compact() call, or by itself after a minute. Absent: always compact.
   */
  claimCompaction?(): Promise<boolean>;
  /**
   * Whether the store can take writes right now. Stores in this process always can;
   * a Redis log cannot while its connection is down (writes then get LOG_UNAVAILABLE).
   */
  available(): boolean;
  /**
   * For a log reached over the network: resolves with the error to answer (LOG_UNAVAILABLE,
   * naming the log) once this process has not reached the log for its write timeout,
   * counted from when the connection dropped; resolves undefined when `signal` aborts or
   * the log closes. It bounds waits for this hub to apply an entry, which cannot progress
   * while the log is unreachable. Absent: the log is in this process and always reachable.
   */
  unreachable?(signal: AbortSignal): Promise<HubError | undefined>;
  close(): Promise<void>;
}
