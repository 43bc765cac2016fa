// Original file: proto/pbconfigentry/config_entry.proto

import type { HTTPHeaderModifiers as _hashicorp_consul_internal_configentry_HTTPHeaderModifiers, HTTPHeaderModifiers__Output as _hashicorp_consul_internal_configentry_HTTPHeaderModifiers__Output } from '../../../../hashicorp/consul/internal/configentry/HTTPHeaderModifiers';

export interface ServiceSplit {
  'Weight'?: (number | string);
  'Service'?: (string);
  'ServiceSubset'?: (string);
  'Namespace'?: (string);
  'Partition'?: (string);
  'RequestHeaders'?: (_hashicorp_consul_internal_configentry_HTTPHeaderModifiers | null);
  'ResponseHeaders'?: (_hashicorp_consul_internal_configentry_HTTPHeaderModifiers | null);
}

export interface ServiceSplit__Output {
  'Weight': (number);
  'Service': (string);
  'ServiceSubset': (string);
  'Namespace': (string);
  'Partition': (string);
  'RequestHeaders': (_hashicorp_consul_internal_configentry_HTTPHeaderModifiers__Output | null);
  'ResponseHeaders': (_hashicorp_consul_internal_configentry_HTTPHeaderModifiers__Output | null);
}
