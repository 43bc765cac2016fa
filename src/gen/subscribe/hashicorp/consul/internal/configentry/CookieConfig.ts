// Original file: proto/pbconfigentry/config_entry.proto

import type { Duration as _google_protobuf_Duration, Duration__Output as _google_protobuf_Duration__Output } from '../../../../google/protobuf/Duration';

export interface CookieConfig {
  'Session'?: (boolean);
  'TTL'?: (_google_protobuf_Duration | null);
  'Path'?: (string);
}

export interface CookieConfig__Output {
  'Session': (boolean);
  'TTL': (_google_protobuf_Duration__Output | null);
  'Path': (string);
}
