// Original file: proto/pbsubscribe/subscribe.proto

import type { CatalogOp as _subscribe_CatalogOp, CatalogOp__Output as _subscribe_CatalogOp__Output } from '../subscribe/CatalogOp';
import type { CheckServiceNode as _hashicorp_consul_internal_service_CheckServiceNode, CheckServiceNode__Output as _hashicorp_consul_internal_service_CheckServiceNode__Output } from '../hashicorp/consul/internal/service/CheckServiceNode';

export interface ServiceHealthUpdate {
  'Op'?: (_subscribe_CatalogOp);
  'CheckServiceNode'?: (_hashicorp_consul_internal_service_CheckServiceNode | null);
}

export interface ServiceHealthUpdate__Output {
  'Op': (_subscribe_CatalogOp__Output);
  'CheckServiceNode': (_hashicorp_consul_internal_service_CheckServiceNode__Output | null);
}
