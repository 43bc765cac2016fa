// Original file: proto/pbconfigentry/config_entry.proto

import type { GatewayTLSSDSConfig as _hashicorp_consul_internal_configentry_GatewayTLSSDSConfig, GatewayTLSSDSConfig__Output as _hashicorp_consul_internal_configentry_GatewayTLSSDSConfig__Output } from '../../../../hashicorp/consul/internal/configentry/GatewayTLSSDSConfig';

export interface GatewayServiceTLSConfig {
  'SDS'?: (_hashicorp_consul_internal_configentry_GatewayTLSSDSConfig | null);
}

export interface GatewayServiceTLSConfig__Output {
  'SDS': (_hashicorp_consul_internal_configentry_GatewayTLSSDSConfig__Output | null);
}
