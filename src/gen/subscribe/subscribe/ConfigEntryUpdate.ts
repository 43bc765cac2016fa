// Original file: proto/pbsubscribe/subscribe.proto

import type { ConfigEntry as _hashicorp_consul_internal_configentry_ConfigEntry, ConfigEntry__Output as _hashicorp_consul_internal_configentry_ConfigEntry__Output } from '../hashicorp/consul/internal/configentry/ConfigEntry';

// Original file: proto/pbsubscribe/subscribe.proto

export const _subscribe_ConfigEntryUpdate_UpdateOp = {
  Upsert: 'Upsert',
  Delete: 'Delete',
} as const;

export type _subscribe_ConfigEntryUpdate_UpdateOp =
  | 'Upsert'
  | 0
  | 'Delete'
  | 1

export type _subscribe_ConfigEntryUpdate_UpdateOp__Output = typeof _subscribe_ConfigEntryUpdate_UpdateOp[keyof typeof _subscribe_ConfigEntryUpdate_UpdateOp]

export interface ConfigEntryUpdate {
  'Op'?: (_subscribe_ConfigEntryUpdate_UpdateOp);
  'ConfigEntry'?: (_hashicorp_consul_internal_configentry_ConfigEntry | null);
}

export interface ConfigEntryUpdate__Output {
  'Op': (_subscribe_ConfigEntryUpdate_UpdateOp__Output);
  'ConfigEntry': (_hashicorp_consul_internal_configentry_ConfigEntry__Output | null);
}
