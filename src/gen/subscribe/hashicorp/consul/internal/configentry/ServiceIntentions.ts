// Original file: proto/pbconfigentry/config_entry.proto

import type { SourceIntention as _hashicorp_consul_internal_configentry_SourceIntention, SourceIntention__Output as _hashicorp_consul_internal_configentry_SourceIntention__Output } from '../../../../hashicorp/consul/internal/configentry/SourceIntention';
import type { IntentionJWTRequirement as _hashicorp_consul_internal_configentry_IntentionJWTRequirement, IntentionJWTRequirement__Output as _hashicorp_consul_internal_configentry_IntentionJWTRequirement__Output } from '../../../../hashicorp/consul/internal/configentry/IntentionJWTRequirement';
import type { Long } from '@grpc/proto-loader';

export interface ServiceIntentions {
  'Sources'?: (_hashicorp_consul_internal_configentry_SourceIntention)[];
  'Meta'?: ({[key: string]: string});
  'JWT'?: (_hashicorp_consul_internal_configentry_IntentionJWTRequirement | null);
  'Hash'?: (number | string | Long);
}

export interface ServiceIntentions__Output {
  'Sources': (_hashicorp_consul_internal_configentry_SourceIntention__Output)[];
  'Meta': ({[key: string]: string});
  'JWT': (_hashicorp_consul_internal_configentry_IntentionJWTRequirement__Output | null);
  'Hash': (string);
}
