// Original file: proto/pbconfigentry/config_entry.proto

import type { IntentionJWTProvider as _hashicorp_consul_internal_configentry_IntentionJWTProvider, IntentionJWTProvider__Output as _hashicorp_consul_internal_configentry_IntentionJWTProvider__Output } from '../../../../hashicorp/consul/internal/configentry/IntentionJWTProvider';

export interface IntentionJWTRequirement {
  'Providers'?: (_hashicorp_consul_internal_configentry_IntentionJWTProvider)[];
}

export interface IntentionJWTRequirement__Output {
  'Providers': (_hashicorp_consul_internal_configentry_IntentionJWTProvider__Output)[];
}
