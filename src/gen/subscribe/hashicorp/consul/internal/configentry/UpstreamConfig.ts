// Original file: proto/pbconfigentry/config_entry.proto

import type { EnterpriseMeta as _hashicorp_consul_internal_common_EnterpriseMeta, EnterpriseMeta__Output as _hashicorp_consul_internal_common_EnterpriseMeta__Output } from '../../../../hashicorp/consul/internal/common/EnterpriseMeta';
import type { UpstreamLimits as _hashicorp_consul_internal_configentry_UpstreamLimits, UpstreamLimits__Output as _hashicorp_consul_internal_configentry_UpstreamLimits__Output } from '../../../../hashicorp/consul/internal/configentry/UpstreamLimits';
import type { PassiveHealthCheck as _hashicorp_consul_internal_configentry_PassiveHealthCheck, PassiveHealthCheck__Output as _hashicorp_consul_internal_configentry_PassiveHealthCheck__Output } from '../../../../hashicorp/consul/internal/configentry/PassiveHealthCheck';
import type { MeshGatewayConfig as _hashicorp_consul_internal_configentry_MeshGatewayConfig, MeshGatewayConfig__Output as _hashicorp_consul_internal_configentry_MeshGatewayConfig__Output } from '../../../../hashicorp/consul/internal/configentry/MeshGatewayConfig';

export interface UpstreamConfig {
  'Name'?: (string);
  'EnterpriseMeta'?: (_hashicorp_consul_internal_common_EnterpriseMeta | null);
  'EnvoyListenerJSON'?: (string);
  'EnvoyClusterJSON'?: (string);
  'Protocol'?: (string);
  'ConnectTimeoutMs'?: (number);
  'Limits'?: (_hashicorp_consul_internal_configentry_UpstreamLimits | null);
  'PassiveHealthCheck'?: (_hashicorp_consul_internal_configentry_PassiveHealthCheck | null);
  'MeshGateway'?: (_hashicorp_consul_internal_configentry_MeshGatewayConfig | null);
  'BalanceOutboundConnections'?: (string);
  'Peer'?: (string);
}

export interface UpstreamConfig__Output {
  'Name': (string);
  'EnterpriseMeta': (_hashicorp_consul_internal_common_EnterpriseMeta__Output | null);
  'EnvoyListenerJSON': (string);
  'EnvoyClusterJSON': (string);
  'Protocol': (string);
  'ConnectTimeoutMs': (number);
  'Limits': (_hashicorp_consul_internal_configentry_UpstreamLimits__Output | null);
  'PassiveHealthCheck': (_hashicorp_consul_internal_configentry_PassiveHealthCheck__Output | null);
  'MeshGateway': (_hashicorp_consul_internal_configentry_MeshGatewayConfig__Output | null);
  'BalanceOutboundConnections': (string);
  'Peer': (string);
}
