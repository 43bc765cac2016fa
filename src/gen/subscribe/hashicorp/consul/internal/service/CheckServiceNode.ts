// Original file: proto/pbservice/node.proto

import type { Node as _hashicorp_consul_internal_service_Node, Node__Output as _hashicorp_consul_internal_service_Node__Output } from '../../../../hashicorp/consul/internal/service/Node';
import type { NodeService as _hashicorp_consul_internal_service_NodeService, NodeService__Output as _hashicorp_consul_internal_service_NodeService__Output } from '../../../../hashicorp/consul/internal/service/NodeService';
import type { HealthCheck as _hashicorp_consul_internal_service_HealthCheck, HealthCheck__Output as _hashicorp_consul_internal_service_HealthCheck__Output } from '../../../../hashicorp/consul/internal/service/HealthCheck';

export interface CheckServiceNode {
  'Node'?: (_hashicorp_consul_internal_service_Node | null);
  'Service'?: (_hashicorp_consul_internal_service_NodeService | null);
  'Checks'?: (_hashicorp_consul_internal_service_HealthCheck)[];
}

export interface CheckServiceNode__Output {
  'Node': (_hashicorp_consul_internal_service_Node__Output | null);
  'Service': (_hashicorp_consul_internal_service_NodeService__Output | null);
  'Checks': (_hashicorp_consul_internal_service_HealthCheck__Output)[];
}
