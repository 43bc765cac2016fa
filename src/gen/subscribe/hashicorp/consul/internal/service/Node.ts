// Original file: proto/pbservice/node.proto

import type { RaftIndex as _hashicorp_consul_internal_common_RaftIndex, RaftIndex__Output as _hashicorp_consul_internal_common_RaftIndex__Output } from '../../../../hashicorp/consul/internal/common/RaftIndex';
import type { Locality as _hashicorp_consul_internal_common_Locality, Locality__Output as _hashicorp_consul_internal_common_Locality__Output } from '../../../../hashicorp/consul/internal/common/Locality';

export interface Node {
  'ID'?: (string);
  'Node'?: (string);
  'Address'?: (string);
  'Datacenter'?: (string);
  'TaggedAddresses'?: ({[key: string]: string});
  'Meta'?: ({[key: string]: string});
  'RaftIndex'?: (_hashicorp_consul_internal_common_RaftIndex | null);
  'Partition'?: (string);
  'PeerName'?: (string);
  'Locality'?: (_hashicorp_consul_internal_common_Locality | null);
}

export interface Node__Output {
  'ID': (string);
  'Node': (string);
  'Address': (string);
  'Datacenter': (string);
  'TaggedAddresses': ({[key: string]: string});
  'Meta': ({[key: string]: string});
  'RaftIndex': (_hashicorp_consul_internal_common_RaftIndex__Output | null);
  'Partition': (string);
  'PeerName': (string);
  'Locality': (_hashicorp_consul_internal_common_Locality__Output | null);
}
