// Original file: proto/pbconfigentry/config_entry.proto


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
