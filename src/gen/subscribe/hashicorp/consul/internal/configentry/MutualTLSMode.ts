// Original file: proto/pbconfigentry/config_entry.proto

export const MutualTLSMode = {
  MutualTLSModeDefault: 'MutualTLSModeDefault',
  MutualTLSModeStrict: 'MutualTLSModeStrict',
  MutualTLSModePermissive: 'MutualTLSModePermissive',
} as const;

export type MutualTLSMode =
  | 'MutualTLSModeDefault'
  | 0
  | 'MutualTLSModeStrict'
  | 1
  | 'MutualTLSModePermissive'
  | 2

export type MutualTLSMode__Output = typeof MutualTLSMode[keyof typeof MutualTLSMode]
