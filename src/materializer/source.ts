// Where a materializer's events come from: the in-process publisher or another
// hub's gRPC Subscribe API. Both yield the same StreamItems and fail with the
// same HubError codes, so the materializer cannot tell them apart.
import { HubError, isHubError } from '../errors';
import type { StreamItem, SubscribeRequest } from '../subscribe/types';

export interface Source {
  /**
   * One subscription attempt. Iteration ends quietly when `signal` aborts and
   * throws a HubError otherwise: SUBSCRIPTION_RESET (state replaced: reset and
   * resubscribe from 0), PERMISSION_DENIED / INVALID_ARGUMENT / NOT_FOUND
   * (terminal: retrying cannot help), anything else (transient: resume).
   */
  subscribe(request: SubscribeRequest, signal: AbortSignal): AsyncIterable<StreamItem>;
  /** Releases connections the source holds (no-op for the in-process source). */
  close(): void;
}

export type ErrorClass = 'reset' | 'terminal' | 'transient';

export function classifyError(err: unknown): ErrorClass {
  if (!isHubError(err)) return 'transient';
  switch (err.code) {
    case 'SUBSCRIPTION_RESET':
      return 'reset';
    case 'PERMISSION_DENIED':
    case 'INVALID_ARGUMENT':
    case 'NOT_FOUND':
      return 'terminal';
    default:
      return 'transient';
  }
}

/** Anything a source throws, as a HubError (unknown errors become INTERNAL, cause kept). */
export function toHubError(err: unknown): HubError {
  if (err instanceof HubError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new HubError('INTERNAL', message, { cause: err });
}
