// Original file: proto/pbconfigentry/config_entry.proto


export interface TransparentProxyMeshConfig {
  'MeshDestinationsOnly'?: (boolean);
}

export interface TransparentProxyMeshConfig__Output {
  'MeshDestinationsOnly': (boolean);
}
