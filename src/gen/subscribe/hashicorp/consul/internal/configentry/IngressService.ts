// Original file: proto/pbconfigentry/config_entry.proto

import type { GatewayServiceTLSConfig as _hashicorp_consul_internal_configentry_GatewayServiceTLSConfig, GatewayServiceTLSConfig__Output as _hashicorp_consul_internal_configentry_GatewayServiceTLSConfig__Output } from '../../../../hashicorp/consul/internal/configentry/GatewayServiceTLSConfig';
import type { HTTPHeaderModifiers as _hashicorp_consul_internal_configentry_HTTPHeaderModifiers, HTTPHeaderModifiers__Output as _hashicorp_consul_internal_configentry_HTTPHeaderModifiers__Output } from '../../../../hashicorp/consul/internal/configentry/HTTPHeaderModifiers';
import type { EnterpriseMeta as _hashicorp_consul_internal_common_EnterpriseMeta, EnterpriseMeta__Output as _hashicorp_consul_internal_common_EnterpriseMeta__Output } from '../../../../hashicorp/consul/internal/common/EnterpriseMeta';
import type { PassiveHealthCheck as _hashicorp_consul_internal_configentry_PassiveHealthCheck, PassiveHealthCheck__Output as _hashicorp_consul_internal_configentry_PassiveHealthCheck__Output } from '../../../../hashicorp/consul/internal/configentry/PassiveHealthCheck';

export interface IngressService {
  'Name'?: (string);
  'Hosts'?: (string)[];
  'TLS'?: (_hashicorp_consul_internal_configentry_GatewayServiceTLSConfig | null);
  'RequestHeaders'?: (_hashicorp_consul_internal_configentry_HTTPHeaderModifiers | null);
  'ResponseHeaders'?: (_hashicorp_consul_internal_configentry_HTTPHeaderModifiers | null);
  'Meta'?: ({[key: string]: string});
  'EnterpriseMeta'?: (_hashicorp_consul_internal_common_EnterpriseMeta | null);
  'MaxConnections'?: (number);
  'MaxPendingRequests'?: (number);
  'MaxConcurrentRequests'?: (number);
  'PassiveHealthCheck'?: (_hashicorp_consul_internal_configentry_PassiveHealthCheck | null);
}

export interface IngressService__Output {
  'Name': (string);
  'Hosts': (string)[];
  'TLS': (_hashicorp_consul_internal_configentry_GatewayServiceTLSConfig__Output | null);
  'RequestHeaders': (_hashicorp_consul_internal_configentry_HTTPHeaderModifiers__Output | null);
  'ResponseHeaders': (_hashicorp_consul_internal_configentry_HTTPHeaderModifiers__Output | null);
  'Meta': ({[key: string]: string});
  'EnterpriseMeta': (_hashicorp_consul_internal_common_EnterpriseMeta__Output | null);
  'MaxConnections': (number);
  'MaxPendingRequests': (number);
  'MaxConcurrentRequests': (number);
  'PassiveHealthCheck': (_hashicorp_consul_internal_configentry_PassiveHealthCheck__Output | null);
}
