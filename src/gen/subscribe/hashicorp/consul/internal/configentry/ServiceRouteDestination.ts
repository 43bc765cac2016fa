// Original file: proto/pbconfigentry/config_entry.proto

import type { Duration as _google_protobuf_Duration, Duration__Output as _google_protobuf_Duration__Output } from '../../../../google/protobuf/Duration';
import type { HTTPHeaderModifiers as _hashicorp_consul_internal_configentry_HTTPHeaderModifiers, HTTPHeaderModifiers__Output as _hashicorp_consul_internal_configentry_HTTPHeaderModifiers__Output } from '../../../../hashicorp/consul/internal/configentry/HTTPHeaderModifiers';

export interface ServiceRouteDestination {
  'Service'?: (string);
  'ServiceSubset'?: (string);
  'Namespace'?: (string);
  'Partition'?: (string);
  'PrefixRewrite'?: (string);
  'RequestTimeout'?: (_google_protobuf_Duration | null);
  'IdleTimeout'?: (_google_protobuf_Duration | null);
  'NumRetries'?: (number);
  'RetryOnConnectFailure'?: (boolean);
  'RetryOnStatusCodes'?: (number)[];
  'RetryOn'?: (string)[];
  'RequestHeaders'?: (_hashicorp_consul_internal_configentry_HTTPHeaderModifiers | null);
  'ResponseHeaders'?: (_hashicorp_consul_internal_configentry_HTTPHeaderModifiers | null);
}

export interface ServiceRouteDestination__Output {
  'Service': (string);
  'ServiceSubset': (string);
  'Namespace': (string);
  'Partition': (string);
  'PrefixRewrite': (string);
  'RequestTimeout': (_google_protobuf_Duration__Output | null);
  'IdleTimeout': (_google_protobuf_Duration__Output | null);
  'NumRetries': (number);
  'RetryOnConnectFailure': (boolean);
  'RetryOnStatusCodes': (number)[];
  'RetryOn': (string)[];
  'RequestHeaders': (_hashicorp_consul_internal_configentry_HTTPHeaderModifiers__Output | null);
  'ResponseHeaders': (_hashicorp_consul_internal_configentry_HTTPHeaderModifiers__Output | null);
}
