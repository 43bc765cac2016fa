// Original file: proto/pbsubscribe/subscribe.proto

import type { Event as _subscribe_Event, Event__Output as _subscribe_Event__Output } from '../subscribe/Event';

export interface EventBatch {
  'Events'?: (_subscribe_Event)[];
}

export interface EventBatch__Output {
  'Events': (_subscribe_Event__Output)[];
}
