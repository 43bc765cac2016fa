// Original file: proto/pbconfigentry/config_entry.proto

import type { ServiceSplit as _hashicorp_consul_internal_configentry_ServiceSplit, ServiceSplit__Output as _hashicorp_consul_internal_configentry_ServiceSplit__Output } from '../../../../hashicorp/consul/internal/configentry/ServiceSplit';

export interface ServiceSplitter {
  'Splits'?: (_hashicorp_consul_internal_configentry_ServiceSplit)[];
  'Meta'?: ({[key: string]: string});
}

export interface ServiceSplitter__Output {
  'Splits': (_hashicorp_consul_internal_configentry_ServiceSplit__Output)[];
  'Meta': ({[key: string]: string});
}
