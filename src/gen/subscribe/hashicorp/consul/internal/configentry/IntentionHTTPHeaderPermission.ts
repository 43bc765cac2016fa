// Original file: proto/pbconfigentry/config_entry.proto


export interface IntentionHTTPHeaderPermission {
  'Name'?: (string);
  'Present'?: (boolean);
  'Exact'?: (string);
  'Prefix'?: (string);
  'Suffix'?: (string);
  'Regex'?: (string);
  'Invert'?: (boolean);
  'Contains'?: (string);
  'IgnoreCase'?: (boolean);
}

export interface IntentionHTTPHeaderPermission__Output {
  'Name': (string);
  'Present': (boolean);
  'Exact': (string);
  'Prefix': (string);
  'Suffix': (string);
  'Regex': (string);
  'Invert': (boolean);
  'Contains': (string);
  'IgnoreCase': (boolean);
}
