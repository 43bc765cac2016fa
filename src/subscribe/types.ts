// The in-process face of the event publisher: what the gRPC Subscribe handler
// and the materializer's in-process source both consume.

import type { Authorizer } from '../acl/authorizer';
import type { CatalogEvent, Topic } from '../catalog/types';
import type { HubError } from '../errors';

export type Subject =
  | { wildcard: true }
  | { wildcard?: false; key: string; namespace?: string; partition?: string; peerName?: string };

export interface SubscribeRequest {
  topic: Topic;
  subject: Subject;
  /** ACL token (the secret), as the client sent it. */
  token: string;
  /**
   * The token's rights, resolved by the caller (the gRPC face); events it may
   * not read are dropped, and the subscription ends with SUBSCRIPTION_RESET when
   * the token's rights change. Absent = the hub's own trusted readers (views): no filter.
   */
  authorizer?: Authorizer;
  /** 0n = fresh subscription (snapshot first); > 0n = resume attempt. */
  index: bigint;
}

/**
 * What a subscription yields, in order. `events` is one log entry's events for the
 * subject (more than one becomes an EventBatch on the wire); snapshot items carry
 * the snapshot's index.
 */
export type StreamItem =
  | { kind: 'events'; index: bigint; events: readonly CatalogEvent[] }
  | { kind: 'end-of-snapshot'; index: bigint }
  | { kind: 'new-snapshot-to-follow' };

/**
 * What subscribe() returns. `closed`, when present, settles as soon as the
 * publisher ends the subscription on its own (reset, shutdown, slow consumer),
 * so a writer parked on backpressure learns it without pulling the next item.
 */
export interface Subscription extends AsyncIterable<StreamItem> {
  readonly closed?: Promise<HubError>;
}

export interface Publisher {
  /**
   * Starts a subscription. Throws HubError('INVALID_ARGUMENT') for a bad request.
   * Iteration ends when `signal` aborts, and throws HubError with code
   * SUBSCRIPTION_RESET (state replaced: client must reset; gRPC ABORTED),
   * SHUTTING_DOWN (clean shutdown; gRPC UNAVAILABLE) or SLOW_CONSUMER (fell too far behind).
   */
  subscribe(request: SubscribeRequest, signal: AbortSignal): Subscription;
  /** Clean shutdown: every open subscription ends with SHUTTING_DOWN. */
  close(): void;
}
