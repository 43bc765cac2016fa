// Original file: proto/pbconfigentry/config_entry.proto

import type { TransparentProxyMeshConfig as _hashicorp_consul_internal_configentry_TransparentProxyMeshConfig, TransparentProxyMeshConfig__Output as _hashicorp_consul_internal_configentry_TransparentProxyMeshConfig__Output } from '../../../../hashicorp/consul/internal/configentry/TransparentProxyMeshConfig';
import type { MeshTLSConfig as _hashicorp_consul_internal_configentry_MeshTLSConfig, MeshTLSConfig__Output as _hashicorp_consul_internal_configentry_MeshTLSConfig__Output } from '../../../../hashicorp/consul/internal/configentry/MeshTLSConfig';
import type { MeshHTTPConfig as _hashicorp_consul_internal_configentry_MeshHTTPConfig, MeshHTTPConfig__Output as _hashicorp_consul_internal_configentry_MeshHTTPConfig__Output } from '../../../../hashicorp/consul/internal/configentry/MeshHTTPConfig';
import type { PeeringMeshConfig as _hashicorp_consul_internal_configentry_PeeringMeshConfig, PeeringMeshConfig__Output as _hashicorp_consul_internal_configentry_PeeringMeshConfig__Output } from '../../../../hashicorp/consul/internal/configentry/PeeringMeshConfig';
import type { Long } from '@grpc/proto-loader';

export interface MeshConfig {
  'TransparentProxy'?: (_hashicorp_consul_internal_configentry_TransparentProxyMeshConfig | null);
  'TLS'?: (_hashicorp_consul_internal_configentry_MeshTLSConfig | null);
  'HTTP'?: (_hashicorp_consul_internal_configentry_MeshHTTPConfig | null);
  'Meta'?: ({[key: string]: string});
  'Peering'?: (_hashicorp_consul_internal_configentry_PeeringMeshConfig | null);
  'AllowEnablingPermissiveMutualTLS'?: (boolean);
  'Hash'?: (number | string | Long);
  'ValidateClusters'?: (boolean);
}

export interface MeshConfig__Output {
  'TransparentProxy': (_hashicorp_consul_internal_configentry_TransparentProxyMeshConfig__Output | null);
  'TLS': (_hashicorp_consul_internal_configentry_MeshTLSConfig__Output | null);
  'HTTP': (_hashicorp_consul_internal_configentry_MeshHTTPConfig__Output | null);
  'Meta': ({[key: string]: string});
  'Peering': (_hashicorp_consul_internal_configentry_PeeringMeshConfig__Output | null);
  'AllowEnablingPermissiveMutualTLS': (boolean);
  'Hash': (string);
  'ValidateClusters': (boolean);
}
