// Original file: proto/pbservice/service.proto


export interface AIConfig {
  'Role'?: (string);
}

export interface AIConfig__Output {
  'Role': (string);
}
