// Original file: proto/pbconfigentry/config_entry.proto


export interface PeeringMeshConfig {
  'PeerThroughMeshGateways'?: (boolean);
}

export interface PeeringMeshConfig__Output {
  'PeerThroughMeshGateways': (boolean);
}
