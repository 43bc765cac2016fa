// Original file: proto/pbconfigentry/config_entry.proto

import type { MeshDirectionalTLSConfig as _hashicorp_consul_internal_configentry_MeshDirectionalTLSConfig, MeshDirectionalTLSConfig__Output as _hashicorp_consul_internal_configentry_MeshDirectionalTLSConfig__Output } from '../../../../hashicorp/consul/internal/configentry/MeshDirectionalTLSConfig';

export interface MeshTLSConfig {
  'Incoming'?: (_hashicorp_consul_internal_configentry_MeshDirectionalTLSConfig | null);
  'Outgoing'?: (_hashicorp_consul_internal_configentry_MeshDirectionalTLSConfig | null);
}

export interface MeshTLSConfig__Output {
  'Incoming': (_hashicorp_consul_internal_configentry_MeshDirectionalTLSConfig__Output | null);
  'Outgoing': (_hashicorp_consul_internal_configentry_MeshDirectionalTLSConfig__Output | null);
}
