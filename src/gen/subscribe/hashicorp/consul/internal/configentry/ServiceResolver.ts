// Original file: proto/pbconfigentry/config_entry.proto

import type { ServiceResolverSubset as _hashicorp_consul_internal_configentry_ServiceResolverSubset, ServiceResolverSubset__Output as _hashicorp_consul_internal_configentry_ServiceResolverSubset__Output } from '../../../../hashicorp/consul/internal/configentry/ServiceResolverSubset';
import type { ServiceResolverRedirect as _hashicorp_consul_internal_configentry_ServiceResolverRedirect, ServiceResolverRedirect__Output as _hashicorp_consul_internal_configentry_ServiceResolverRedirect__Output } from '../../../../hashicorp/consul/internal/configentry/ServiceResolverRedirect';
import type { ServiceResolverFailover as _hashicorp_consul_internal_configentry_ServiceResolverFailover, ServiceResolverFailover__Output as _hashicorp_consul_internal_configentry_ServiceResolverFailover__Output } from '../../../../hashicorp/consul/internal/configentry/ServiceResolverFailover';
import type { Duration as _google_protobuf_Duration, Duration__Output as _google_protobuf_Duration__Output } from '../../../../google/protobuf/Duration';
import type { LoadBalancer as _hashicorp_consul_internal_configentry_LoadBalancer, LoadBalancer__Output as _hashicorp_consul_internal_configentry_LoadBalancer__Output } from '../../../../hashicorp/consul/internal/configentry/LoadBalancer';
import type { ServiceResolverPrioritizeByLocality as _hashicorp_consul_internal_configentry_ServiceResolverPrioritizeByLocality, ServiceResolverPrioritizeByLocality__Output as _hashicorp_consul_internal_configentry_ServiceResolverPrioritizeByLocality__Output } from '../../../../hashicorp/consul/internal/configentry/ServiceResolverPrioritizeByLocality';
import type { Long } from '@grpc/proto-loader';

export interface ServiceResolver {
  'DefaultSubset'?: (string);
  'Subsets'?: ({[key: string]: _hashicorp_consul_internal_configentry_ServiceResolverSubset});
  'Redirect'?: (_hashicorp_consul_internal_configentry_ServiceResolverRedirect | null);
  'Failover'?: ({[key: string]: _hashicorp_consul_internal_configentry_ServiceResolverFailover});
  'ConnectTimeout'?: (_google_protobuf_Duration | null);
  'LoadBalancer'?: (_hashicorp_consul_internal_configentry_LoadBalancer | null);
  'Meta'?: ({[key: string]: string});
  'RequestTimeout'?: (_google_protobuf_Duration | null);
  'PrioritizeByLocality'?: (_hashicorp_consul_internal_configentry_ServiceResolverPrioritizeByLocality | null);
  'Hash'?: (number | string | Long);
}

export interface ServiceResolver__Output {
  'DefaultSubset': (string);
  'Subsets': ({[key: string]: _hashicorp_consul_internal_configentry_ServiceResolverSubset__Output});
  'Redirect': (_hashicorp_consul_internal_configentry_ServiceResolverRedirect__Output | null);
  'Failover': ({[key: string]: _hashicorp_consul_internal_configentry_ServiceResolverFailover__Output});
  'ConnectTimeout': (_google_protobuf_Duration__Output | null);
  'LoadBalancer': (_hashicorp_consul_internal_configentry_LoadBalancer__Output | null);
  'Meta': ({[key: string]: string});
  'RequestTimeout': (_google_protobuf_Duration__Output | null);
  'PrioritizeByLocality': (_hashicorp_consul_internal_configentry_ServiceResolverPrioritizeByLocality__Output | null);
  'Hash': (string);
}
