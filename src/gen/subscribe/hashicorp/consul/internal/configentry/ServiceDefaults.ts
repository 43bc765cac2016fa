// Original file: proto/pbconfigentry/config_entry.proto

import type { ProxyMode as _hashicorp_consul_internal_configentry_ProxyMode, ProxyMode__Output as _hashicorp_consul_internal_configentry_ProxyMode__Output } from '../../../../hashicorp/consul/internal/configentry/ProxyMode';
import type { TransparentProxyConfig as _hashicorp_consul_internal_configentry_TransparentProxyConfig, TransparentProxyConfig__Output as _hashicorp_consul_internal_configentry_TransparentProxyConfig__Output } from '../../../../hashicorp/consul/internal/configentry/TransparentProxyConfig';
import type { MeshGatewayConfig as _hashicorp_consul_internal_configentry_MeshGatewayConfig, MeshGatewayConfig__Output as _hashicorp_consul_internal_configentry_MeshGatewayConfig__Output } from '../../../../hashicorp/consul/internal/configentry/MeshGatewayConfig';
import type { ExposeConfig as _hashicorp_consul_internal_configentry_ExposeConfig, ExposeConfig__Output as _hashicorp_consul_internal_configentry_ExposeConfig__Output } from '../../../../hashicorp/consul/internal/configentry/ExposeConfig';
import type { UpstreamConfiguration as _hashicorp_consul_internal_configentry_UpstreamConfiguration, UpstreamConfiguration__Output as _hashicorp_consul_internal_configentry_UpstreamConfiguration__Output } from '../../../../hashicorp/consul/internal/configentry/UpstreamConfiguration';
import type { DestinationConfig as _hashicorp_consul_internal_configentry_DestinationConfig, DestinationConfig__Output as _hashicorp_consul_internal_configentry_DestinationConfig__Output } from '../../../../hashicorp/consul/internal/configentry/DestinationConfig';
import type { EnvoyExtension as _hashicorp_consul_internal_common_EnvoyExtension, EnvoyExtension__Output as _hashicorp_consul_internal_common_EnvoyExtension__Output } from '../../../../hashicorp/consul/internal/common/EnvoyExtension';
import type { MutualTLSMode as _hashicorp_consul_internal_configentry_MutualTLSMode, MutualTLSMode__Output as _hashicorp_consul_internal_configentry_MutualTLSMode__Output } from '../../../../hashicorp/consul/internal/configentry/MutualTLSMode';
import type { RateLimits as _hashicorp_consul_internal_configentry_RateLimits, RateLimits__Output as _hashicorp_consul_internal_configentry_RateLimits__Output } from '../../../../hashicorp/consul/internal/configentry/RateLimits';
import type { Long } from '@grpc/proto-loader';

export interface ServiceDefaults {
  'Protocol'?: (string);
  'Mode'?: (_hashicorp_consul_internal_configentry_ProxyMode);
  'TransparentProxy'?: (_hashicorp_consul_internal_configentry_TransparentProxyConfig | null);
  'MeshGateway'?: (_hashicorp_consul_internal_configentry_MeshGatewayConfig | null);
  'Expose'?: (_hashicorp_consul_internal_configentry_ExposeConfig | null);
  'ExternalSNI'?: (string);
  'UpstreamConfig'?: (_hashicorp_consul_internal_configentry_UpstreamConfiguration | null);
  'Destination'?: (_hashicorp_consul_internal_configentry_DestinationConfig | null);
  'MaxInboundConnections'?: (number);
  'LocalConnectTimeoutMs'?: (number);
  'LocalRequestTimeoutMs'?: (number);
  'BalanceInboundConnections'?: (string);
  'Meta'?: ({[key: string]: string});
  'EnvoyExtensions'?: (_hashicorp_consul_internal_common_EnvoyExtension)[];
  'MutualTLSMode'?: (_hashicorp_consul_internal_configentry_MutualTLSMode);
  'RateLimits'?: (_hashicorp_consul_internal_configentry_RateLimits | null);
  'Hash'?: (number | string | Long);
  'MaxRequestHeadersKB'?: (number);
  '_MaxRequestHeadersKB'?: "MaxRequestHeadersKB";
}

export interface ServiceDefaults__Output {
  'Protocol': (string);
  'Mode': (_hashicorp_consul_internal_configentry_ProxyMode__Output);
  'TransparentProxy': (_hashicorp_consul_internal_configentry_TransparentProxyConfig__Output | null);
  'MeshGateway': (_hashicorp_consul_internal_configentry_MeshGatewayConfig__Output | null);
  'Expose': (_hashicorp_consul_internal_configentry_ExposeConfig__Output | null);
  'ExternalSNI': (string);
  'UpstreamConfig': (_hashicorp_consul_internal_configentry_UpstreamConfiguration__Output | null);
  'Destination': (_hashicorp_consul_internal_configentry_DestinationConfig__Output | null);
  'MaxInboundConnections': (number);
  'LocalConnectTimeoutMs': (number);
  'LocalRequestTimeoutMs': (number);
  'BalanceInboundConnections': (string);
  'Meta': ({[key: string]: string});
  'EnvoyExtensions': (_hashicorp_consul_internal_common_EnvoyExtension__Output)[];
  'MutualTLSMode': (_hashicorp_consul_internal_configentry_MutualTLSMode__Output);
  'RateLimits': (_hashicorp_consul_internal_configentry_RateLimits__Output | null);
  'Hash': (string);
  'MaxRequestHeadersKB'?: (number);
  '_MaxRequestHeadersKB'?: "MaxRequestHeadersKB";
}
