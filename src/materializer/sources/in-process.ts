// The in-process source: events straight from this hub's publisher, no
// serialization. The publisher already speaks HubError codes; anything else it
// throws is normalized so the materializer sees one taxonomy.
import type { Publisher, StreamItem, SubscribeRequest } from '../../subscribe/types';
import { type Source, toHubError } from '../source';

export function inProcessSource(publisher: Publisher): Source {
  return {
    subscribe(request: SubscribeRequest, signal: AbortSignal): AsyncIterable<StreamItem> {
      return {
        async *[Symbol.asyncIterator]() {
          try {
            yield* publisher.subscribe(request, signal);
          } catch (err) {
            if (signal.aborted) return;
            throw toHubError(err);
          }
        },
      };
    },
    close() {},
  };
}
