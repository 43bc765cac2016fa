// Original file: proto/pbconfigentry/config_entry.proto


export interface ServiceRouteHTTPMatchQueryParam {
  'Name'?: (string);
  'Present'?: (boolean);
  'Exact'?: (string);
  'Regex'?: (string);
}

export interface ServiceRouteHTTPMatchQueryParam__Output {
  'Name': (string);
  'Present': (boolean);
  'Exact': (string);
  'Regex': (string);
}
