// Original file: proto/pbservice/service.proto


export interface ExposePath {
  'ListenerPort'?: (number);
  'Path'?: (string);
  'LocalPathPort'?: (number);
  'Protocol'?: (string);
  'ParsedFromCheck'?: (boolean);
}

export interface ExposePath__Output {
  'ListenerPort': (number);
  'Path': (string);
  'LocalPathPort': (number);
  'Protocol': (string);
  'ParsedFromCheck': (boolean);
}
