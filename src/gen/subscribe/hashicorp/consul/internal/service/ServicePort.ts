// Original file: proto/pbservice/service.proto


export interface ServicePort {
  'Port'?: (number);
  'Name'?: (string);
  'Default'?: (boolean);
}

export interface ServicePort__Output {
  'Port': (number);
  'Name': (string);
  'Default': (boolean);
}
