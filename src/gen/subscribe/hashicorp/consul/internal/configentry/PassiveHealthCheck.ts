// Original file: proto/pbconfigentry/config_entry.proto

import type { Duration as _google_protobuf_Duration, Duration__Output as _google_protobuf_Duration__Output } from '../../../../google/protobuf/Duration';

export interface PassiveHealthCheck {
  'Interval'?: (_google_protobuf_Duration | null);
  'MaxFailures'?: (number);
  'EnforcingConsecutive5xx'?: (number);
  'MaxEjectionPercent'?: (number);
  'BaseEjectionTime'?: (_google_protobuf_Duration | null);
  'EnforcingConsecutiveGatewayFailure'?: (number);
  'Consecutive5xx'?: (number);
  'ConsecutiveGatewayFailure'?: (number);
}

export interface PassiveHealthCheck__Output {
  'Interval': (_google_protobuf_Duration__Output | null);
  'MaxFailures': (number);
  'EnforcingConsecutive5xx': (number);
  'MaxEjectionPercent': (number);
  'BaseEjectionTime': (_google_protobuf_Duration__Output | null);
  'EnforcingConsecutiveGatewayFailure': (number);
  'Consecutive5xx': (number);
  'ConsecutiveGatewayFailure': (number);
}
