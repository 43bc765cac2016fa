// Original file: proto/pbconfigentry/config_entry.proto

import type { PassiveHealthCheck as _hashicorp_consul_internal_configentry_PassiveHealthCheck, PassiveHealthCheck__Output as _hashicorp_consul_internal_configentry_PassiveHealthCheck__Output } from '../../../../hashicorp/consul/internal/configentry/PassiveHealthCheck';

export interface IngressServiceConfig {
  'MaxConnections'?: (number);
  'MaxPendingRequests'?: (number);
  'MaxConcurrentRequests'?: (number);
  'PassiveHealthCheck'?: (_hashicorp_consul_internal_configentry_PassiveHealthCheck | null);
}

export interface IngressServiceConfig__Output {
  'MaxConnections': (number);
  'MaxPendingRequests': (number);
  'MaxConcurrentRequests': (number);
  'PassiveHealthCheck': (_hashicorp_consul_internal_configentry_PassiveHealthCheck__Output | null);
}
