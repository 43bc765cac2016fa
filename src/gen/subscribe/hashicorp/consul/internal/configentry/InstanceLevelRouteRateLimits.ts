// Original file: proto/pbconfigentry/config_entry.proto


export interface InstanceLevelRouteRateLimits {
  'PathExact'?: (string);
  'PathPrefix'?: (string);
  'PathRegex'?: (string);
  'RequestsPerSecond'?: (number);
  'RequestsMaxBurst'?: (number);
}

export interface InstanceLevelRouteRateLimits__Output {
  'PathExact': (string);
  'PathPrefix': (string);
  'PathRegex': (string);
  'RequestsPerSecond': (number);
  'RequestsMaxBurst': (number);
}
