// Original file: proto/pbconfigentry/config_entry.proto


export interface ServiceResolverPrioritizeByLocality {
  'Mode'?: (string);
}

export interface ServiceResolverPrioritizeByLocality__Output {
  'Mode': (string);
}
