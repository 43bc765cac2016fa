// Original file: proto/pbconfigentry/config_entry.proto

import type { InstanceLevelRouteRateLimits as _hashicorp_consul_internal_configentry_InstanceLevelRouteRateLimits, InstanceLevelRouteRateLimits__Output as _hashicorp_consul_internal_configentry_InstanceLevelRouteRateLimits__Output } from '../../../../hashicorp/consul/internal/configentry/InstanceLevelRouteRateLimits';

export interface InstanceLevelRateLimits {
  'RequestsPerSecond'?: (number);
  'RequestsMaxBurst'?: (number);
  'Routes'?: (_hashicorp_consul_internal_configentry_InstanceLevelRouteRateLimits)[];
}

export interface InstanceLevelRateLimits__Output {
  'RequestsPerSecond': (number);
  'RequestsMaxBurst': (number);
  'Routes': (_hashicorp_consul_internal_configentry_InstanceLevelRouteRateLimits__Output)[];
}
