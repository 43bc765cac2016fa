// Original file: proto/pbconfigentry/config_entry.proto

import type { CookieConfig as _hashicorp_consul_internal_configentry_CookieConfig, CookieConfig__Output as _hashicorp_consul_internal_configentry_CookieConfig__Output } from '../../../../hashicorp/consul/internal/configentry/CookieConfig';

export interface HashPolicy {
  'Field'?: (string);
  'FieldValue'?: (string);
  'CookieConfig'?: (_hashicorp_consul_internal_configentry_CookieConfig | null);
  'SourceIP'?: (boolean);
  'Terminal'?: (boolean);
}

export interface HashPolicy__Output {
  'Field': (string);
  'FieldValue': (string);
  'CookieConfig': (_hashicorp_consul_internal_configentry_CookieConfig__Output | null);
  'SourceIP': (boolean);
  'Terminal': (boolean);
}
