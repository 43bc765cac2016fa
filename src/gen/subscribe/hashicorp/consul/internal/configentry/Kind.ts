// Original file: proto/pbconfigentry/config_entry.proto

export const Kind = {
  KindUnknown: 'KindUnknown',
  KindMeshConfig: 'KindMeshConfig',
  KindServiceResolver: 'KindServiceResolver',
  KindIngressGateway: 'KindIngressGateway',
  KindServiceIntentions: 'KindServiceIntentions',
  KindServiceDefaults: 'KindServiceDefaults',
  KindInlineCertificate: 'KindInlineCertificate',
  KindAPIGateway: 'KindAPIGateway',
  KindBoundAPIGateway: 'KindBoundAPIGateway',
  KindHTTPRoute: 'KindHTTPRoute',
  KindTCPRoute: 'KindTCPRoute',
  KindSamenessGroup: 'KindSamenessGroup',
  KindJWTProvider: 'KindJWTProvider',
  KindExportedServices: 'KindExportedServices',
  KindFileSystemCertificate: 'KindFileSystemCertificate',
  KindInferenceGateway: 'KindInferenceGateway',
  KindServiceRouter: 'KindServiceRouter',
  KindServiceSplitter: 'KindServiceSplitter',
  KindProxyDefaults: 'KindProxyDefaults',
  KindTerminatingGateway: 'KindTerminatingGateway',
} as const;

export type Kind =
  | 'KindUnknown'
  | 0
  | 'KindMeshConfig'
  | 1
  | 'KindServiceResolver'
  | 2
  | 'KindIngressGateway'
  | 3
  | 'KindServiceIntentions'
  | 4
  | 'KindServiceDefaults'
  | 5
  | 'KindInlineCertificate'
  | 6
  | 'KindAPIGateway'
  | 7
  | 'KindBoundAPIGateway'
  | 8
  | 'KindHTTPRoute'
  | 9
  | 'KindTCPRoute'
  | 10
  | 'KindSamenessGroup'
  | 11
  | 'KindJWTProvider'
  | 12
  | 'KindExportedServices'
  | 13
  | 'KindFileSystemCertificate'
  | 14
  | 'KindInferenceGateway'
  | 15
  | 'KindServiceRouter'
  | 1001
  | 'KindServiceSplitter'
  | 1002
  | 'KindProxyDefaults'
  | 1010
  | 'KindTerminatingGateway'
  | 1011

export type Kind__Output = typeof Kind[keyof typeof Kind]
