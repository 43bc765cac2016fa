// Original file: proto/pbconfigentry/config_entry.proto


export interface DestinationConfig {
  'Addresses'?: (string)[];
  'Port'?: (number);
}

export interface DestinationConfig__Output {
  'Addresses': (string)[];
  'Port': (number);
}
