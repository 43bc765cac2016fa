// Original file: proto/pbconfigentry/config_entry.proto

import type { Struct as _google_protobuf_Struct, Struct__Output as _google_protobuf_Struct__Output } from '../../../../google/protobuf/Struct';
import type { ProxyMode as _hashicorp_consul_internal_configentry_ProxyMode, ProxyMode__Output as _hashicorp_consul_internal_configentry_ProxyMode__Output } from '../../../../hashicorp/consul/internal/configentry/ProxyMode';
import type { TransparentProxyConfig as _hashicorp_consul_internal_configentry_TransparentProxyConfig, TransparentProxyConfig__Output as _hashicorp_consul_internal_configentry_TransparentProxyConfig__Output } from '../../../../hashicorp/consul/internal/configentry/TransparentProxyConfig';
import type { MeshGatewayConfig as _hashicorp_consul_internal_configentry_MeshGatewayConfig, MeshGatewayConfig__Output as _hashicorp_consul_internal_configentry_MeshGatewayConfig__Output } from '../../../../hashicorp/consul/internal/configentry/MeshGatewayConfig';
import type { ExposeConfig as _hashicorp_consul_internal_configentry_ExposeConfig, ExposeConfig__Output as _hashicorp_consul_internal_configentry_ExposeConfig__Output } from '../../../../hashicorp/consul/internal/configentry/ExposeConfig';

export interface ProxyDefaults {
  'Config'?: (_google_protobuf_Struct | null);
  'Mode'?: (_hashicorp_consul_internal_configentry_ProxyMode);
  'TransparentProxy'?: (_hashicorp_consul_internal_configentry_TransparentProxyConfig | null);
  'MeshGateway'?: (_hashicorp_consul_internal_configentry_MeshGatewayConfig | null);
  'Expose'?: (_hashicorp_consul_internal_configentry_ExposeConfig | null);
  'Meta'?: ({[key: string]: string});
}

export interface ProxyDefaults__Output {
  'Config': (_google_protobuf_Struct__Output | null);
  'Mode': (_hashicorp_consul_internal_configentry_ProxyMode__Output);
  'TransparentProxy': (_hashicorp_consul_internal_configentry_TransparentProxyConfig__Output | null);
  'MeshGateway': (_hashicorp_consul_internal_configentry_MeshGatewayConfig__Output | null);
  'Expose': (_hashicorp_consul_internal_configentry_ExposeConfig__Output | null);
  'Meta': ({[key: string]: string});
}
