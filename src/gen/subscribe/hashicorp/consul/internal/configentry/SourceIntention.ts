// Original file: proto/pbconfigentry/config_entry.proto

import type { IntentionAction as _hashicorp_consul_internal_configentry_IntentionAction, IntentionAction__Output as _hashicorp_consul_internal_configentry_IntentionAction__Output } from '../../../../hashicorp/consul/internal/configentry/IntentionAction';
import type { IntentionPermission as _hashicorp_consul_internal_configentry_IntentionPermission, IntentionPermission__Output as _hashicorp_consul_internal_configentry_IntentionPermission__Output } from '../../../../hashicorp/consul/internal/configentry/IntentionPermission';
import type { IntentionSourceType as _hashicorp_consul_internal_configentry_IntentionSourceType, IntentionSourceType__Output as _hashicorp_consul_internal_configentry_IntentionSourceType__Output } from '../../../../hashicorp/consul/internal/configentry/IntentionSourceType';
import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../../../google/protobuf/Timestamp';
import type { EnterpriseMeta as _hashicorp_consul_internal_common_EnterpriseMeta, EnterpriseMeta__Output as _hashicorp_consul_internal_common_EnterpriseMeta__Output } from '../../../../hashicorp/consul/internal/common/EnterpriseMeta';

export interface SourceIntention {
  'Name'?: (string);
  'Action'?: (_hashicorp_consul_internal_configentry_IntentionAction);
  'Permissions'?: (_hashicorp_consul_internal_configentry_IntentionPermission)[];
  'Precedence'?: (number);
  'LegacyID'?: (string);
  'Type'?: (_hashicorp_consul_internal_configentry_IntentionSourceType);
  'Description'?: (string);
  'LegacyMeta'?: ({[key: string]: string});
  'LegacyCreateTime'?: (_google_protobuf_Timestamp | null);
  'LegacyUpdateTime'?: (_google_protobuf_Timestamp | null);
  'EnterpriseMeta'?: (_hashicorp_consul_internal_common_EnterpriseMeta | null);
  'Peer'?: (string);
  'SamenessGroup'?: (string);
}

export interface SourceIntention__Output {
  'Name': (string);
  'Action': (_hashicorp_consul_internal_configentry_IntentionAction__Output);
  'Permissions': (_hashicorp_consul_internal_configentry_IntentionPermission__Output)[];
  'Precedence': (number);
  'LegacyID': (string);
  'Type': (_hashicorp_consul_internal_configentry_IntentionSourceType__Output);
  'Description': (string);
  'LegacyMeta': ({[key: string]: string});
  'LegacyCreateTime': (_google_protobuf_Timestamp__Output | null);
  'LegacyUpdateTime': (_google_protobuf_Timestamp__Output | null);
  'EnterpriseMeta': (_hashicorp_consul_internal_common_EnterpriseMeta__Output | null);
  'Peer': (string);
  'SamenessGroup': (string);
}
