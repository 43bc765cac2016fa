// The seam between the materializer (framing, index, waiting) and what it builds:
// a View folds batches of events into immutable state and hands out frozen results.
// The materializer owns the index; a view only knows how to fold and to render.
import type { CatalogEvent } from '../catalog/types';
import type { ViewResult } from './types';

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
  /**
   * Optional: the result as a frozen `{ index, value }` whose value is built when
   * first read (the same value `result` gives as of this update, even when read
   * after later ones). The materializer hands these out when the view has them, so
   * a reader that never reads the value (the xDS provider, which asks the view
   * what changed) never pays for building it.
   */
  deferred?(index: bigint): ViewResult<T>;
  /** Forgets everything, before a new snapshot. */
  reset(): void;
}

// Values put into views are frozen the way the catalog freezes what it stores
// (its objects arrive frozen, so this costs nothing for the in-process source).
export { deepFreeze } from '../catalog/values';
