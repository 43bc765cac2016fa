// Original file: proto/pbservice/service.proto

import type { ServiceDefinition as _hashicorp_consul_internal_service_ServiceDefinition, ServiceDefinition__Output as _hashicorp_consul_internal_service_ServiceDefinition__Output } from '../../../../hashicorp/consul/internal/service/ServiceDefinition';
import type { PeeringServiceMeta as _hashicorp_consul_internal_service_PeeringServiceMeta, PeeringServiceMeta__Output as _hashicorp_consul_internal_service_PeeringServiceMeta__Output } from '../../../../hashicorp/consul/internal/service/PeeringServiceMeta';

export interface ServiceConnect {
  'Native'?: (boolean);
  'SidecarService'?: (_hashicorp_consul_internal_service_ServiceDefinition | null);
  'PeerMeta'?: (_hashicorp_consul_internal_service_PeeringServiceMeta | null);
}

export interface ServiceConnect__Output {
  'Native': (boolean);
  'SidecarService': (_hashicorp_consul_internal_service_ServiceDefinition__Output | null);
  'PeerMeta': (_hashicorp_consul_internal_service_PeeringServiceMeta__Output | null);
}
