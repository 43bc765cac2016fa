// Original file: proto/pbconfigentry/config_entry.proto

import type { MeshDirectionalHTTPConfig as _hashicorp_consul_internal_configentry_MeshDirectionalHTTPConfig, MeshDirectionalHTTPConfig__Output as _hashicorp_consul_internal_configentry_MeshDirectionalHTTPConfig__Output } from '../../../../hashicorp/consul/internal/configentry/MeshDirectionalHTTPConfig';

export interface MeshHTTPConfig {
  'SanitizeXForwardedClientCert'?: (boolean);
  'Incoming'?: (_hashicorp_consul_internal_configentry_MeshDirectionalHTTPConfig | null);
}

export interface MeshHTTPConfig__Output {
  'SanitizeXForwardedClientCert': (boolean);
  'Incoming': (_hashicorp_consul_internal_configentry_MeshDirectionalHTTPConfig__Output | null);
}
