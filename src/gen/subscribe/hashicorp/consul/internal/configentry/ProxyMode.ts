// Original file: proto/pbconfigentry/config_entry.proto

export const ProxyMode = {
  ProxyModeDefault: 'ProxyModeDefault',
  ProxyModeTransparent: 'ProxyModeTransparent',
  ProxyModeDirect: 'ProxyModeDirect',
} as const;

export type ProxyMode =
  | 'ProxyModeDefault'
  | 0
  | 'ProxyModeTransparent'
  | 1
  | 'ProxyModeDirect'
  | 2

export type ProxyMode__Output = typeof ProxyMode[keyof typeof ProxyMode]
