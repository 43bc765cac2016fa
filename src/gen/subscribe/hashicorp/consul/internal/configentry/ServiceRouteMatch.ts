// Original file: proto/pbconfigentry/config_entry.proto

import type { ServiceRouteHTTPMatch as _hashicorp_consul_internal_configentry_ServiceRouteHTTPMatch, ServiceRouteHTTPMatch__Output as _hashicorp_consul_internal_configentry_ServiceRouteHTTPMatch__Output } from '../../../../hashicorp/consul/internal/configentry/ServiceRouteHTTPMatch';

export interface ServiceRouteMatch {
  'HTTP'?: (_hashicorp_consul_internal_configentry_ServiceRouteHTTPMatch | null);
}

export interface ServiceRouteMatch__Output {
  'HTTP': (_hashicorp_consul_internal_configentry_ServiceRouteHTTPMatch__Output | null);
}
