// Original file: proto/pbconfigentry/config_entry.proto

import type { GatewayTLSSDSConfig as _hashicorp_consul_internal_configentry_GatewayTLSSDSConfig, GatewayTLSSDSConfig__Output as _hashicorp_consul_internal_configentry_GatewayTLSSDSConfig__Output } from '../../../../hashicorp/consul/internal/configentry/GatewayTLSSDSConfig';

export interface GatewayTLSConfig {
  'Enabled'?: (boolean);
  'SDS'?: (_hashicorp_consul_internal_configentry_GatewayTLSSDSConfig | null);
  'TLSMinVersion'?: (string);
  'TLSMaxVersion'?: (string);
  'CipherSuites'?: (string)[];
}

export interface GatewayTLSConfig__Output {
  'Enabled': (boolean);
  'SDS': (_hashicorp_consul_internal_configentry_GatewayTLSSDSConfig__Output | null);
  'TLSMinVersion': (string);
  'TLSMaxVersion': (string);
  'CipherSuites': (string)[];
}
