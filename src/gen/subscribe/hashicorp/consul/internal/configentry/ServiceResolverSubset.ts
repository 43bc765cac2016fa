// Original file: proto/pbconfigentry/config_entry.proto


export interface ServiceResolverSubset {
  'Filter'?: (string);
  'OnlyPassing'?: (boolean);
}

export interface ServiceResolverSubset__Output {
  'Filter': (string);
  'OnlyPassing': (boolean);
}
