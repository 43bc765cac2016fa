// Original file: proto/pbconfigentry/config_entry.proto

import type { LinkedService as _hashicorp_consul_internal_configentry_LinkedService, LinkedService__Output as _hashicorp_consul_internal_configentry_LinkedService__Output } from '../../../../hashicorp/consul/internal/configentry/LinkedService';

export interface TerminatingGateway {
  'Services'?: (_hashicorp_consul_internal_configentry_LinkedService)[];
  'Meta'?: ({[key: string]: string});
}

export interface TerminatingGateway__Output {
  'Services': (_hashicorp_consul_internal_configentry_LinkedService__Output)[];
  'Meta': ({[key: string]: string});
}
