// Original file: proto/pbconfigentry/config_entry.proto

export const MeshGatewayMode = {
  MeshGatewayModeDefault: 'MeshGatewayModeDefault',
  MeshGatewayModeNone: 'MeshGatewayModeNone',
  MeshGatewayModeLocal: 'MeshGatewayModeLocal',
  MeshGatewayModeRemote: 'MeshGatewayModeRemote',
} as const;

export type MeshGatewayMode =
  | 'MeshGatewayModeDefault'
  | 0
  | 'MeshGatewayModeNone'
  | 1
  | 'MeshGatewayModeLocal'
  | 2
  | 'MeshGatewayModeRemote'
  | 3

export type MeshGatewayMode__Output = typeof MeshGatewayMode[keyof typeof MeshGatewayMode]
