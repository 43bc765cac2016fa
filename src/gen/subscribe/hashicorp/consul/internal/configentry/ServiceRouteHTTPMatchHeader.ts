// Original file: proto/pbconfigentry/config_entry.proto


export interface ServiceRouteHTTPMatchHeader {
  'Name'?: (string);
  'Present'?: (boolean);
  'Exact'?: (string);
  'Prefix'?: (string);
  'Suffix'?: (string);
  'Regex'?: (string);
  'Invert'?: (boolean);
}

export interface ServiceRouteHTTPMatchHeader__Output {
  'Name': (string);
  'Present': (boolean);
  'Exact': (string);
  'Prefix': (string);
  'Suffix': (string);
  'Regex': (string);
  'Invert': (boolean);
}
