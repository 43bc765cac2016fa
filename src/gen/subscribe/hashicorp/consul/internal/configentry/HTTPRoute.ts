// Original file: proto/pbconfigentry/config_entry.proto

import type { Long } from '@grpc/proto-loader';

export interface HTTPRoute {
  'Meta'?: ({[key: string]: string});
  'Hostnames'?: (string)[];
  'Hash'?: (number | string | Long);
}

export interface HTTPRoute__Output {
  'Meta': ({[key: string]: string});
  'Hostnames': (string)[];
  'Hash': (string);
}
