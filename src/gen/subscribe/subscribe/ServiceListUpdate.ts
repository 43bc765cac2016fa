// Original file: proto/pbsubscribe/subscribe.proto

import type { CatalogOp as _subscribe_CatalogOp, CatalogOp__Output as _subscribe_CatalogOp__Output } from '../subscribe/CatalogOp';
import type { EnterpriseMeta as _hashicorp_consul_internal_common_EnterpriseMeta, EnterpriseMeta__Output as _hashicorp_consul_internal_common_EnterpriseMeta__Output } from '../hashicorp/consul/internal/common/EnterpriseMeta';

export interface ServiceListUpdate {
  'Op'?: (_subscribe_CatalogOp);
  'Name'?: (string);
  'EnterpriseMeta'?: (_hashicorp_consul_internal_common_EnterpriseMeta | null);
  'PeerName'?: (string);
}

export interface ServiceListUpdate__Output {
  'Op': (_subscribe_CatalogOp__Output);
  'Name': (string);
  'EnterpriseMeta': (_hashicorp_consul_internal_common_EnterpriseMeta__Output | null);
  'PeerName': (string);
}
