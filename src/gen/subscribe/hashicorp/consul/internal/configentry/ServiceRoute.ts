// Original file: proto/pbconfigentry/config_entry.proto

import type { ServiceRouteMatch as _hashicorp_consul_internal_configentry_ServiceRouteMatch, ServiceRouteMatch__Output as _hashicorp_consul_internal_configentry_ServiceRouteMatch__Output } from '../../../../hashicorp/consul/internal/configentry/ServiceRouteMatch';
import type { ServiceRouteDestination as _hashicorp_consul_internal_configentry_ServiceRouteDestination, ServiceRouteDestination__Output as _hashicorp_consul_internal_configentry_ServiceRouteDestination__Output } from '../../../../hashicorp/consul/internal/configentry/ServiceRouteDestination';

export interface ServiceRoute {
  'Match'?: (_hashicorp_consul_internal_configentry_ServiceRouteMatch | null);
  'Destination'?: (_hashicorp_consul_internal_configentry_ServiceRouteDestination | null);
}

export interface ServiceRoute__Output {
  'Match': (_hashicorp_consul_internal_configentry_ServiceRouteMatch__Output | null);
  'Destination': (_hashicorp_consul_internal_configentry_ServiceRouteDestination__Output | null);
}
