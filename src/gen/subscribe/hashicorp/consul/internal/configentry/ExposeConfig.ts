// Original file: proto/pbconfigentry/config_entry.proto

import type { ExposePath as _hashicorp_consul_internal_configentry_ExposePath, ExposePath__Output as _hashicorp_consul_internal_configentry_ExposePath__Output } from '../../../../hashicorp/consul/internal/configentry/ExposePath';

export interface ExposeConfig {
  'Checks'?: (boolean);
  'Paths'?: (_hashicorp_consul_internal_configentry_ExposePath)[];
}

export interface ExposeConfig__Output {
  'Checks': (boolean);
  'Paths': (_hashicorp_consul_internal_configentry_ExposePath__Output)[];
}
