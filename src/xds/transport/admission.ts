// Admission of new xDS streams, by capacity rather than by rate. A burst of
// new streams (a fleet reconnecting after a restart) is admitted, and what
// would hurt — every stream's initial sync at once — is paced by the sync gate
// (sync-gate.ts): clients wait in line on an open stream instead of being
// refused and retrying on their own backoff, which would then pace convergence.
// A new stream is refused (RESOURCE_EXHAUSTED, the message naming the bound)
// only past a real bound: the configured maximum of open streams, or a V8 heap
// so full that more streams would take the process down.
import { getHeapStatistics } from 'node:v8';
import { HubError } from '../../errors';

export interface AdmissionOptions {
  /** Open streams at most (--xds-max-streams; 0: no limit). */
  maxStreams: number;
  /** Refuse while the V8 heap holds more than this share of its limit (0: never). */
  maxHeapShare: number;
  /** Heap usage and limit, bytes (v8's by default). */
  heap?: () => { used: number; limit: number };
}

export const MAX_HEAP_SHARE = 0.9;

const v8Heap = () => {
  const h = getHeapStatistics();
  return { used: h.used_heap_size, limit: h.heap_size_limit };
};

export interface Admission {
  /** undefined: admit; else the refusal to end the stream with. */
  check(open: number): HubError | undefined;
}

export function createAdmission(options: AdmissionOptions): Admission {
  const heap = options.heap ?? v8Heap;
  return {
    check(open) {
      if (options.maxStreams > 0 && open >= options.maxStreams) {
        return new HubError(
          'OVER_CAPACITY',
          `xDS: ${open} streams open, the most this hub takes (--xds-max-streams ${options.maxStreams}); connect to another hub or retry later`,
        );
      }
      if (options.maxHeapShare > 0) {
        const { used, limit } = heap();
        if (used > options.maxHeapShare * limit) {
          const mib = (n: number) => Math.round(n / 1048576);
          return new HubError(
            'OVER_CAPACITY',
            `xDS: heap at ${mib(used)} of ${mib(limit)} MiB, above ${Math.round(options.maxHeapShare * 100)}% of its limit; new streams refused until it falls`,
          );
        }
      }
      return undefined;
    },
  };
}
