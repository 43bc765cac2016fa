// Original file: proto/pbconfigentry/config_entry.proto

import type { IngressService as _hashicorp_consul_internal_configentry_IngressService, IngressService__Output as _hashicorp_consul_internal_configentry_IngressService__Output } from '../../../../hashicorp/consul/internal/configentry/IngressService';
import type { GatewayTLSConfig as _hashicorp_consul_internal_configentry_GatewayTLSConfig, GatewayTLSConfig__Output as _hashicorp_consul_internal_configentry_GatewayTLSConfig__Output } from '../../../../hashicorp/consul/internal/configentry/GatewayTLSConfig';

export interface IngressListener {
  'Port'?: (number);
  'Protocol'?: (string);
  'Services'?: (_hashicorp_consul_internal_configentry_IngressService)[];
  'TLS'?: (_hashicorp_consul_internal_configentry_GatewayTLSConfig | null);
}

export interface IngressListener__Output {
  'Port': (number);
  'Protocol': (string);
  'Services': (_hashicorp_consul_internal_configentry_IngressService__Output)[];
  'TLS': (_hashicorp_consul_internal_configentry_GatewayTLSConfig__Output | null);
}
