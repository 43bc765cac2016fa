// Original file: proto/pbconfigentry/config_entry.proto

import type { RequestNormalizationMeshConfig as _hashicorp_consul_internal_configentry_RequestNormalizationMeshConfig, RequestNormalizationMeshConfig__Output as _hashicorp_consul_internal_configentry_RequestNormalizationMeshConfig__Output } from '../../../../hashicorp/consul/internal/configentry/RequestNormalizationMeshConfig';

export interface MeshDirectionalHTTPConfig {
  'RequestNormalization'?: (_hashicorp_consul_internal_configentry_RequestNormalizationMeshConfig | null);
}

export interface MeshDirectionalHTTPConfig__Output {
  'RequestNormalization': (_hashicorp_consul_internal_configentry_RequestNormalizationMeshConfig__Output | null);
}
