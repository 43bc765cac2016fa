// Original file: proto/pbconfigentry/config_entry.proto

import type { MeshGatewayMode as _hashicorp_consul_internal_configentry_MeshGatewayMode, MeshGatewayMode__Output as _hashicorp_consul_internal_configentry_MeshGatewayMode__Output } from '../../../../hashicorp/consul/internal/configentry/MeshGatewayMode';

export interface MeshGatewayConfig {
  'Mode'?: (_hashicorp_consul_internal_configentry_MeshGatewayMode);
}

export interface MeshGatewayConfig__Output {
  'Mode': (_hashicorp_consul_internal_configentry_MeshGatewayMode__Output);
}
