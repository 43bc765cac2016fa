// Pieces every log store shares: argument checks, the compaction arithmetic and
// the error constructors, so the three stores agree to the letter.
import { HubError, invalid } from '../errors';
import type { LogSnapshot } from './log';

/** Entries a tail or an unbounded read fetches per round trip. */
export const PAGE_SIZE = 1_000;

export function checkPayloads(payloads: readonly string[]): void {
  if (!Array.isArray(payloads)) throw invalid('payloads', 'must be an array of strings');
  for (let i = 0; i < payloads.length; i++) {
    if (typeof payloads[i] !== 'string') throw invalid(`payloads[${i}]`, 'must be a string');
  }
}

export function checkLimit(limit: number | undefined): void {
  if (limit === undefined) return;
  if (!Number.isInteger(limit) || limit < 0) throw invalid('limit', `must be a non-negative integer, got ${limit}`);
}

export function checkFrom(from: bigint): void {
  if (typeof from !== 'bigint') throw invalid('from', 'must be a bigint index');
}

/**
 * Index 0 (and below) means "from the beginning": there is no entry 0, so a reader
 * that has seen nothing may pass 0n and still start at 1 on an uncompacted log.
 */
export function effectiveFrom(from: bigint): bigint {
  return from < 1n ? 1n : from;
}

/** Rejects snapshots that would break the log's promises; `last` is the newest assigned index. */
export function checkCompaction(
  snapshot: LogSnapshot,
  keepTail: number,
  last: bigint,
  current: LogSnapshot | undefined,
): void {
  if (snapshot === null || typeof snapshot !== 'object') throw invalid('snapshot', 'must be an object');
  if (typeof snapshot.index !== 'bigint' || snapshot.index < 1n) {
    throw invalid('snapshot.index', 'must be a bigint index >= 1');
  }
  if (typeof snapshot.state !== 'string') throw invalid('snapshot.state', 'must be a string');
  if (snapshot.index > last) {
    throw invalid('snapshot.index', `${snapshot.index} is beyond the newest entry ${last}`);
  }
  if (current !== undefined && snapshot.index < current.index) {
    throw invalid('snapshot.index', `${snapshot.index} is older than the saved snapshot at ${current.index}`);
  }
  if (!Number.isInteger(keepTail) || keepTail < 0) {
    throw invalid('keepTail', `must be a non-negative integer, got ${keepTail}`);
  }
}

/** First index that survives compaction: at most `keepTail` entries at or below the snapshot stay. */
export function compactionCut(snapshot: LogSnapshot, keepTail: number): bigint {
  const cut = snapshot.index - BigInt(keepTail) + 1n;
  return cut < 1n ? 1n : cut;
}

export function compactedError(from: bigint, first: bigint): HubError {
  return new HubError('LOG_COMPACTED', `log index ${from} was compacted; the oldest retained entry is ${first}`);
}

export function closedError(): HubError {
  return new HubError('LOG_CLOSED', 'the log is closed');
}
