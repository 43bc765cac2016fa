// Original file: proto/pbconfigentry/config_entry.proto

import type { IntentionAction as _hashicorp_consul_internal_configentry_IntentionAction, IntentionAction__Output as _hashicorp_consul_internal_configentry_IntentionAction__Output } from '../../../../hashicorp/consul/internal/configentry/IntentionAction';
import type { IntentionHTTPPermission as _hashicorp_consul_internal_configentry_IntentionHTTPPermission, IntentionHTTPPermission__Output as _hashicorp_consul_internal_configentry_IntentionHTTPPermission__Output } from '../../../../hashicorp/consul/internal/configentry/IntentionHTTPPermission';
import type { IntentionJWTRequirement as _hashicorp_consul_internal_configentry_IntentionJWTRequirement, IntentionJWTRequirement__Output as _hashicorp_consul_internal_configentry_IntentionJWTRequirement__Output } from '../../../../hashicorp/consul/internal/configentry/IntentionJWTRequirement';

export interface IntentionPermission {
  'Action'?: (_hashicorp_consul_internal_configentry_IntentionAction);
  'HTTP'?: (_hashicorp_consul_internal_configentry_IntentionHTTPPermission | null);
  'JWT'?: (_hashicorp_consul_internal_configentry_IntentionJWTRequirement | null);
}

export interface IntentionPermission__Output {
  'Action': (_hashicorp_consul_internal_configentry_IntentionAction__Output);
  'HTTP': (_hashicorp_consul_internal_configentry_IntentionHTTPPermission__Output | null);
  'JWT': (_hashicorp_consul_internal_configentry_IntentionJWTRequirement__Output | null);
}
