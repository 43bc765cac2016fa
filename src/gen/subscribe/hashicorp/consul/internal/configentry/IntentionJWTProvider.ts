// Original file: proto/pbconfigentry/config_entry.proto

import type { IntentionJWTClaimVerification as _hashicorp_consul_internal_configentry_IntentionJWTClaimVerification, IntentionJWTClaimVerification__Output as _hashicorp_consul_internal_configentry_IntentionJWTClaimVerification__Output } from '../../../../hashicorp/consul/internal/configentry/IntentionJWTClaimVerification';

export interface IntentionJWTProvider {
  'Name'?: (string);
  'VerifyClaims'?: (_hashicorp_consul_internal_configentry_IntentionJWTClaimVerification)[];
}

export interface IntentionJWTProvider__Output {
  'Name': (string);
  'VerifyClaims': (_hashicorp_consul_internal_configentry_IntentionJWTClaimVerification__Output)[];
}
