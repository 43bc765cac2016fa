// Original file: proto/pbservice/healthcheck.proto


export interface HeaderValue {
  'Value'?: (string)[];
}

export interface HeaderValue__Output {
  'Value': (string)[];
}
