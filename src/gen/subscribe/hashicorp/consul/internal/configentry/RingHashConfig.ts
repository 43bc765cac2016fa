// Original file: proto/pbconfigentry/config_entry.proto

import type { Long } from '@grpc/proto-loader';

export interface RingHashConfig {
  'MinimumRingSize'?: (number | string | Long);
  'MaximumRingSize'?: (number | string | Long);
}

export interface RingHashConfig__Output {
  'MinimumRingSize': (string);
  'MaximumRingSize': (string);
}
