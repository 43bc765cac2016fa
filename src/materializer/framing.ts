// The framing state machine of a Subscribe stream (Consul's submatview handler.go):
// a fresh subscription collects the snapshot until EndOfSnapshot and folds it in
// one update; a resume attempt either gets live events straight away or a
// NewSnapshotToFollow, which resets the view and collects a new snapshot.
import type { CatalogEvent } from '../catalog/types';
import { HubError } from '../errors';
import type { StreamItem } from '../subscribe/types';

export interface FramingTarget {
  /** Fold events and move the index to `index`. */
  update(events: readonly CatalogEvent[], index: bigint): void;
  /** Empty the view and set the index to 0. */
  reset(): void;
}

export type Phase = 'snapshot' | 'resume' | 'stream';

export interface Framing {
  handle(item: StreamItem): void;
  readonly phase: Phase;
}

/** Starts in `snapshot` for index 0 and in `resume` for a resume attempt. */
export function createFraming(startIndex: bigint, target: FramingTarget): Framing {
  let phase: Phase = startIndex === 0n ? 'snapshot' : 'resume';
  let buffer: CatalogEvent[] = [];

  function startSnapshot(): void {
    target.reset();
    buffer = [];
    phase = 'snapshot';
  }

  return {
    get phase() {
      return phase;
    },
    handle(item) {
      switch (phase) {
        case 'snapshot':
          if (item.kind === 'events') {
            for (const e of item.events) buffer.push(e);
          } else if (item.kind === 'end-of-snapshot') {
            const events = buffer;
            buffer = [];
            phase = 'stream';
            target.update(events, item.index);
          } else {
            // Old servers could lead a cached snapshot with NewSnapshotToFollow even
            // for index 0; starting the collection over is the only safe reading.
            startSnapshot();
          }
          return;
        case 'resume':
        case 'stream':
          if (item.kind === 'events') {
            phase = 'stream';
            target.update(item.events, item.index);
          } else if (item.kind === 'new-snapshot-to-follow') {
            startSnapshot();
          } else {
            throw new HubError('INTERNAL', `EndOfSnapshot at index ${item.index} outside a snapshot`);
          }
          return;
      }
    },
  };
}
