// Original file: proto/pbconfigentry/config_entry.proto

import type { ServiceResolverFailoverTarget as _hashicorp_consul_internal_configentry_ServiceResolverFailoverTarget, ServiceResolverFailoverTarget__Output as _hashicorp_consul_internal_configentry_ServiceResolverFailoverTarget__Output } from '../../../../hashicorp/consul/internal/configentry/ServiceResolverFailoverTarget';
import type { ServiceResolverFailoverPolicy as _hashicorp_consul_internal_configentry_ServiceResolverFailoverPolicy, ServiceResolverFailoverPolicy__Output as _hashicorp_consul_internal_configentry_ServiceResolverFailoverPolicy__Output } from '../../../../hashicorp/consul/internal/configentry/ServiceResolverFailoverPolicy';

export interface ServiceResolverFailover {
  'Service'?: (string);
  'ServiceSubset'?: (string);
  'Namespace'?: (string);
  'Datacenters'?: (string)[];
  'Targets'?: (_hashicorp_consul_internal_configentry_ServiceResolverFailoverTarget)[];
  'Policy'?: (_hashicorp_consul_internal_configentry_ServiceResolverFailoverPolicy | null);
  'SamenessGroup'?: (string);
}

export interface ServiceResolverFailover__Output {
  'Service': (string);
  'ServiceSubset': (string);
  'Namespace': (string);
  'Datacenters': (string)[];
  'Targets': (_hashicorp_consul_internal_configentry_ServiceResolverFailoverTarget__Output)[];
  'Policy': (_hashicorp_consul_internal_configentry_ServiceResolverFailoverPolicy__Output | null);
  'SamenessGroup': (string);
}
