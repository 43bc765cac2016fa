// Original file: proto/pbconfigentry/config_entry.proto

import type { IntentionHTTPHeaderPermission as _hashicorp_consul_internal_configentry_IntentionHTTPHeaderPermission, IntentionHTTPHeaderPermission__Output as _hashicorp_consul_internal_configentry_IntentionHTTPHeaderPermission__Output } from '../../../../hashicorp/consul/internal/configentry/IntentionHTTPHeaderPermission';

export interface IntentionHTTPPermission {
  'PathExact'?: (string);
  'PathPrefix'?: (string);
  'PathRegex'?: (string);
  'Header'?: (_hashicorp_consul_internal_configentry_IntentionHTTPHeaderPermission)[];
  'Methods'?: (string)[];
}

export interface IntentionHTTPPermission__Output {
  'PathExact': (string);
  'PathPrefix': (string);
  'PathRegex': (string);
  'Header': (_hashicorp_consul_internal_configentry_IntentionHTTPHeaderPermission__Output)[];
  'Methods': (string)[];
}
