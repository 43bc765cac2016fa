// Original file: proto/pbservice/service.proto


export interface ServiceAddress {
  'Address'?: (string);
  'Port'?: (number);
}

export interface ServiceAddress__Output {
  'Address': (string);
  'Port': (number);
}
