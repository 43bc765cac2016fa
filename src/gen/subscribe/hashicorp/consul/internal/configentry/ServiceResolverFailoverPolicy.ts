// Original file: proto/pbconfigentry/config_entry.proto


export interface ServiceResolverFailoverPolicy {
  'Mode'?: (string);
  'Regions'?: (string)[];
}

export interface ServiceResolverFailoverPolicy__Output {
  'Mode': (string);
  'Regions': (string)[];
}
