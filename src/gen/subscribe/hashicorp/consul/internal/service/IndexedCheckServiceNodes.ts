// Original file: proto/pbservice/node.proto

import type { CheckServiceNode as _hashicorp_consul_internal_service_CheckServiceNode, CheckServiceNode__Output as _hashicorp_consul_internal_service_CheckServiceNode__Output } from '../../../../hashicorp/consul/internal/service/CheckServiceNode';
import type { Long } from '@grpc/proto-loader';

export interface IndexedCheckServiceNodes {
  'Index'?: (number | string | Long);
  'Nodes'?: (_hashicorp_consul_internal_service_CheckServiceNode)[];
}

export interface IndexedCheckServiceNodes__Output {
  'Index': (string);
  'Nodes': (_hashicorp_consul_internal_service_CheckServiceNode__Output)[];
}
