// Original file: proto/pbservice/service.proto


export interface MeshGatewayConfig {
  'Mode'?: (string);
}

export interface MeshGatewayConfig__Output {
  'Mode': (string);
}
