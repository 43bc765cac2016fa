// Original file: proto/pbconfigentry/config_entry.proto


export interface ServiceResolverFailoverTarget {
  'Service'?: (string);
  'ServiceSubset'?: (string);
  'Partition'?: (string);
  'Namespace'?: (string);
  'Datacenter'?: (string);
  'Peer'?: (string);
}

export interface ServiceResolverFailoverTarget__Output {
  'Service': (string);
  'ServiceSubset': (string);
  'Partition': (string);
  'Namespace': (string);
  'Datacenter': (string);
  'Peer': (string);
}
