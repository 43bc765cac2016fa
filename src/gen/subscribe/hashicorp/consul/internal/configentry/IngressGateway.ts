// Original file: proto/pbconfigentry/config_entry.proto

import type { GatewayTLSConfig as _hashicorp_consul_internal_configentry_GatewayTLSConfig, GatewayTLSConfig__Output as _hashicorp_consul_internal_configentry_GatewayTLSConfig__Output } from '../../../../hashicorp/consul/internal/configentry/GatewayTLSConfig';
import type { IngressListener as _hashicorp_consul_internal_configentry_IngressListener, IngressListener__Output as _hashicorp_consul_internal_configentry_IngressListener__Output } from '../../../../hashicorp/consul/internal/configentry/IngressListener';
import type { IngressServiceConfig as _hashicorp_consul_internal_configentry_IngressServiceConfig, IngressServiceConfig__Output as _hashicorp_consul_internal_configentry_IngressServiceConfig__Output } from '../../../../hashicorp/consul/internal/configentry/IngressServiceConfig';
import type { Long } from '@grpc/proto-loader';

export interface IngressGateway {
  'TLS'?: (_hashicorp_consul_internal_configentry_GatewayTLSConfig | null);
  'Listeners'?: (_hashicorp_consul_internal_configentry_IngressListener)[];
  'Meta'?: ({[key: string]: string});
  'Defaults'?: (_hashicorp_consul_internal_configentry_IngressServiceConfig | null);
  'Hash'?: (number | string | Long);
}

export interface IngressGateway__Output {
  'TLS': (_hashicorp_consul_internal_configentry_GatewayTLSConfig__Output | null);
  'Listeners': (_hashicorp_consul_internal_configentry_IngressListener__Output)[];
  'Meta': ({[key: string]: string});
  'Defaults': (_hashicorp_consul_internal_configentry_IngressServiceConfig__Output | null);
  'Hash': (string);
}
