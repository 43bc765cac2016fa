// The seam between the materializer (framing, index, waiting) and what it builds:
// a View folds batches of events into immutable state and hands out frozen results.
// The materializer owns the index; a view only knows how to fold and to render.
import type { CatalogEvent } from '../catalog/types';

export interface View<T> {
  /**
   * Folds events, in order, into the view. The first call after a reset gets the
   * whole snapshot (possibly empty); later calls get one delivery of live events.
   * Throws (HubError INTERNAL) on an event the view cannot take; the materializer
   * then resets and resubscribes.
   */
  update(events: readonly CatalogEvent[]): void;
  /** The deeply frozen result as of the last update; the same value until the next update or reset. */
  result(index: bigint): T;
  /** Forgets everything, before a new snapshot. */
  reset(): void;
}

// Values put into views are frozen the way the catalog freezes what it stores
// (its objects arrive frozen, so this costs nothing for the in-process source).
export { deepFreeze } from '../catalog/values';
