// Original file: proto/pbconfigentry/config_entry.proto

import type { PathWithEscapedSlashesAction as _hashicorp_consul_internal_configentry_PathWithEscapedSlashesAction, PathWithEscapedSlashesAction__Output as _hashicorp_consul_internal_configentry_PathWithEscapedSlashesAction__Output } from '../../../../hashicorp/consul/internal/configentry/PathWithEscapedSlashesAction';
import type { HeadersWithUnderscoresAction as _hashicorp_consul_internal_configentry_HeadersWithUnderscoresAction, HeadersWithUnderscoresAction__Output as _hashicorp_consul_internal_configentry_HeadersWithUnderscoresAction__Output } from '../../../../hashicorp/consul/internal/configentry/HeadersWithUnderscoresAction';

export interface RequestNormalizationMeshConfig {
  'InsecureDisablePathNormalization'?: (boolean);
  'MergeSlashes'?: (boolean);
  'PathWithEscapedSlashesAction'?: (_hashicorp_consul_internal_configentry_PathWithEscapedSlashesAction);
  'HeadersWithUnderscoresAction'?: (_hashicorp_consul_internal_configentry_HeadersWithUnderscoresAction);
}

export interface RequestNormalizationMeshConfig__Output {
  'InsecureDisablePathNormalization': (boolean);
  'MergeSlashes': (boolean);
  'PathWithEscapedSlashesAction': (_hashicorp_consul_internal_configentry_PathWithEscapedSlashesAction__Output);
  'HeadersWithUnderscoresAction': (_hashicorp_consul_internal_configentry_HeadersWithUnderscoresAction__Output);
}
