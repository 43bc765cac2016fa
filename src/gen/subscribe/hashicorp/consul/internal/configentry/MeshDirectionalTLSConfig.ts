// Original file: proto/pbconfigentry/config_entry.proto


export interface MeshDirectionalTLSConfig {
  'TLSMinVersion'?: (string);
  'TLSMaxVersion'?: (string);
  'CipherSuites'?: (string)[];
  'ECDHCurves'?: (string)[];
}

export interface MeshDirectionalTLSConfig__Output {
  'TLSMinVersion': (string);
  'TLSMaxVersion': (string);
  'CipherSuites': (string)[];
  'ECDHCurves': (string)[];
}
