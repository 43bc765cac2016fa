// Original file: proto/pbconfigentry/config_entry.proto

import type { InstanceLevelRateLimits as _hashicorp_consul_internal_configentry_InstanceLevelRateLimits, InstanceLevelRateLimits__Output as _hashicorp_consul_internal_configentry_InstanceLevelRateLimits__Output } from '../../../../hashicorp/consul/internal/configentry/InstanceLevelRateLimits';

export interface RateLimits {
  'InstanceLevel'?: (_hashicorp_consul_internal_configentry_InstanceLevelRateLimits | null);
}

export interface RateLimits__Output {
  'InstanceLevel': (_hashicorp_consul_internal_configentry_InstanceLevelRateLimits__Output | null);
}
