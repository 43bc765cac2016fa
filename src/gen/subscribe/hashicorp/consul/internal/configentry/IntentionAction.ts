// Original file: proto/pbconfigentry/config_entry.proto

export const IntentionAction = {
  IntentionActionDeny: 'IntentionActionDeny',
  IntentionActionAllow: 'IntentionActionAllow',
} as const;

export type IntentionAction =
  | 'IntentionActionDeny'
  | 0
  | 'IntentionActionAllow'
  | 1

export type IntentionAction__Output = typeof IntentionAction[keyof typeof IntentionAction]
