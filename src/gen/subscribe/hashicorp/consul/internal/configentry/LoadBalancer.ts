// Original file: proto/pbconfigentry/config_entry.proto

import type { RingHashConfig as _hashicorp_consul_internal_configentry_RingHashConfig, RingHashConfig__Output as _hashicorp_consul_internal_configentry_RingHashConfig__Output } from '../../../../hashicorp/consul/internal/configentry/RingHashConfig';
import type { LeastRequestConfig as _hashicorp_consul_internal_configentry_LeastRequestConfig, LeastRequestConfig__Output as _hashicorp_consul_internal_configentry_LeastRequestConfig__Output } from '../../../../hashicorp/consul/internal/configentry/LeastRequestConfig';
import type { HashPolicy as _hashicorp_consul_internal_configentry_HashPolicy, HashPolicy__Output as _hashicorp_consul_internal_configentry_HashPolicy__Output } from '../../../../hashicorp/consul/internal/configentry/HashPolicy';

export interface LoadBalancer {
  'Policy'?: (string);
  'RingHashConfig'?: (_hashicorp_consul_internal_configentry_RingHashConfig | null);
  'LeastRequestConfig'?: (_hashicorp_consul_internal_configentry_LeastRequestConfig | null);
  'HashPolicies'?: (_hashicorp_consul_internal_configentry_HashPolicy)[];
}

export interface LoadBalancer__Output {
  'Policy': (string);
  'RingHashConfig': (_hashicorp_consul_internal_configentry_RingHashConfig__Output | null);
  'LeastRequestConfig': (_hashicorp_consul_internal_configentry_LeastRequestConfig__Output | null);
  'HashPolicies': (_hashicorp_consul_internal_configentry_HashPolicy__Output)[];
}
