// Original file: proto/pbconfigentry/config_entry.proto

export const PathWithEscapedSlashesAction = {
  PathWithEscapedSlashesActionDefault: 'PathWithEscapedSlashesActionDefault',
  PathWithEscapedSlashesActionKeep: 'PathWithEscapedSlashesActionKeep',
  PathWithEscapedSlashesActionReject: 'PathWithEscapedSlashesActionReject',
  PathWithEscapedSlashesActionUnescapeAndRedirect: 'PathWithEscapedSlashesActionUnescapeAndRedirect',
  PathWithEscapedSlashesActionUnescapeAndForward: 'PathWithEscapedSlashesActionUnescapeAndForward',
} as const;

export type PathWithEscapedSlashesAction =
  | 'PathWithEscapedSlashesActionDefault'
  | 0
  | 'PathWithEscapedSlashesActionKeep'
  | 1
  | 'PathWithEscapedSlashesActionReject'
  | 2
  | 'PathWithEscapedSlashesActionUnescapeAndRedirect'
  | 3
  | 'PathWithEscapedSlashesActionUnescapeAndForward'
  | 4

export type PathWithEscapedSlashesAction__Output = typeof PathWithEscapedSlashesAction[keyof typeof PathWithEscapedSlashesAction]
