// Original file: proto/pbconfigentry/config_entry.proto

import type { UpstreamConfig as _hashicorp_consul_internal_configentry_UpstreamConfig, UpstreamConfig__Output as _hashicorp_consul_internal_configentry_UpstreamConfig__Output } from '../../../../hashicorp/consul/internal/configentry/UpstreamConfig';

export interface UpstreamConfiguration {
  'Overrides'?: (_hashicorp_consul_internal_configentry_UpstreamConfig)[];
  'Defaults'?: (_hashicorp_consul_internal_configentry_UpstreamConfig | null);
}

export interface UpstreamConfiguration__Output {
  'Overrides': (_hashicorp_consul_internal_configentry_UpstreamConfig__Output)[];
  'Defaults': (_hashicorp_consul_internal_configentry_UpstreamConfig__Output | null);
}
