// Original file: proto/pbconfigentry/config_entry.proto


export interface ServiceResolverRedirect {
  'Service'?: (string);
  'ServiceSubset'?: (string);
  'Namespace'?: (string);
  'Partition'?: (string);
  'Datacenter'?: (string);
  'Peer'?: (string);
  'SamenessGroup'?: (string);
}

export interface ServiceResolverRedirect__Output {
  'Service': (string);
  'ServiceSubset': (string);
  'Namespace': (string);
  'Partition': (string);
  'Datacenter': (string);
  'Peer': (string);
  'SamenessGroup': (string);
}
