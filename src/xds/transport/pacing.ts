// How a stream's pushes are paced (an extension point, docs/architecture.md):
// the push window of X-STREAM-4 (changes coalesced by the pipeline, delivered
// at the window's end or on the ACK), the gate that bounds concurrent large
// initial syncs (sync-gate.ts), and the note of each large write that lets the
// memory trimmer give freed buffers back (memory-trim.ts). The xDS server
// builds one from its config; a test or a bench may hand its own.

import type { XdsStream } from './stream';
import type { SyncGate } from './sync-gate';

export interface StreamPacing {
  /** X-STREAM-4: whether the push window is open now (queued changes go out at once). */
  windowOpen(): boolean;
  /** X-STREAM-4: this stream's queued changes (the oldest reached the hub at `at`) wait for the next delivery. */
  defer(stream: XdsStream, at: number): void;
  /** Bounds how many streams have a large response (initial sync) in flight; absent: unbounded. */
  readonly syncGate?: SyncGate;
  /** A large (gated) response of `bytes` was taken by HTTP/2: its copies are freed. */
  largeWritten?(bytes: number): void;
}
