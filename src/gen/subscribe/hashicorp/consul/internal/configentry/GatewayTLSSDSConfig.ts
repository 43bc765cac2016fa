// Original file: proto/pbconfigentry/config_entry.proto


export interface GatewayTLSSDSConfig {
  'ClusterName'?: (string);
  'CertResource'?: (string);
}

export interface GatewayTLSSDSConfig__Output {
  'ClusterName': (string);
  'CertResource': (string);
}
