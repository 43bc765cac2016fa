// Original file: proto/pbconfigentry/config_entry.proto

import type { ServiceRoute as _hashicorp_consul_internal_configentry_ServiceRoute, ServiceRoute__Output as _hashicorp_consul_internal_configentry_ServiceRoute__Output } from '../../../../hashicorp/consul/internal/configentry/ServiceRoute';

export interface ServiceRouter {
  'Routes'?: (_hashicorp_consul_internal_configentry_ServiceRoute)[];
  'Meta'?: ({[key: string]: string});
}

export interface ServiceRouter__Output {
  'Routes': (_hashicorp_consul_internal_configentry_ServiceRoute__Output)[];
  'Meta': ({[key: string]: string});
}
