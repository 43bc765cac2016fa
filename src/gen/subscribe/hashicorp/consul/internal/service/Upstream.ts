// Original file: proto/pbservice/service.proto

import type { Struct as _google_protobuf_Struct, Struct__Output as _google_protobuf_Struct__Output } from '../../../../google/protobuf/Struct';
import type { MeshGatewayConfig as _hashicorp_consul_internal_service_MeshGatewayConfig, MeshGatewayConfig__Output as _hashicorp_consul_internal_service_MeshGatewayConfig__Output } from '../../../../hashicorp/consul/internal/service/MeshGatewayConfig';

export interface Upstream {
  'DestinationType'?: (string);
  'DestinationNamespace'?: (string);
  'DestinationName'?: (string);
  'Datacenter'?: (string);
  'LocalBindAddress'?: (string);
  'LocalBindPort'?: (number);
  'Config'?: (_google_protobuf_Struct | null);
  'MeshGateway'?: (_hashicorp_consul_internal_service_MeshGatewayConfig | null);
  'CentrallyConfigured'?: (boolean);
  'LocalBindSocketPath'?: (string);
  'LocalBindSocketMode'?: (string);
  'DestinationPartition'?: (string);
  'DestinationPeer'?: (string);
  'DestinationPort'?: (string);
}

export interface Upstream__Output {
  'DestinationType': (string);
  'DestinationNamespace': (string);
  'DestinationName': (string);
  'Datacenter': (string);
  'LocalBindAddress': (string);
  'LocalBindPort': (number);
  'Config': (_google_protobuf_Struct__Output | null);
  'MeshGateway': (_hashicorp_consul_internal_service_MeshGatewayConfig__Output | null);
  'CentrallyConfigured': (boolean);
  'LocalBindSocketPath': (string);
  'LocalBindSocketMode': (string);
  'DestinationPartition': (string);
  'DestinationPeer': (string);
  'DestinationPort': (string);
}
