// Original file: proto/pbconfigentry/config_entry.proto

export const IntentionSourceType = {
  IntentionSourceTypeConsul: 'IntentionSourceTypeConsul',
} as const;

export type IntentionSourceType =
  | 'IntentionSourceTypeConsul'
  | 0

export type IntentionSourceType__Output = typeof IntentionSourceType[keyof typeof IntentionSourceType]
