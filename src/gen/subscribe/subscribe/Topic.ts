// Original file: proto/pbsubscribe/subscribe.proto

export const Topic = {
  Unknown: 'Unknown',
  ServiceHealth: 'ServiceHealth',
  ServiceHealthConnect: 'ServiceHealthConnect',
  MeshConfig: 'MeshConfig',
  ServiceResolver: 'ServiceResolver',
  IngressGateway: 'IngressGateway',
  ServiceIntentions: 'ServiceIntentions',
  ServiceList: 'ServiceList',
  ServiceDefaults: 'ServiceDefaults',
  APIGateway: 'APIGateway',
  TCPRoute: 'TCPRoute',
  HTTPRoute: 'HTTPRoute',
  InlineCertificate: 'InlineCertificate',
  BoundAPIGateway: 'BoundAPIGateway',
  IPRateLimit: 'IPRateLimit',
  SamenessGroup: 'SamenessGroup',
  JWTProvider: 'JWTProvider',
  ServiceRouter: 'ServiceRouter',
  ServiceSplitter: 'ServiceSplitter',
  ProxyDefaults: 'ProxyDefaults',
  TerminatingGateway: 'TerminatingGateway',
} as const;

export type Topic =
  | 'Unknown'
  | 0
  | 'ServiceHealth'
  | 1
  | 'ServiceHealthConnect'
  | 2
  | 'MeshConfig'
  | 3
  | 'ServiceResolver'
  | 4
  | 'IngressGateway'
  | 5
  | 'ServiceIntentions'
  | 6
  | 'ServiceList'
  | 7
  | 'ServiceDefaults'
  | 8
  | 'APIGateway'
  | 9
  | 'TCPRoute'
  | 10
  | 'HTTPRoute'
  | 11
  | 'InlineCertificate'
  | 12
  | 'BoundAPIGateway'
  | 13
  | 'IPRateLimit'
  | 14
  | 'SamenessGroup'
  | 15
  | 'JWTProvider'
  | 16
  | 'ServiceRouter'
  | 1001
  | 'ServiceSplitter'
  | 1002
  | 'ProxyDefaults'
  | 1010
  | 'TerminatingGateway'
  | 1011

export type Topic__Output = typeof Topic[keyof typeof Topic]
