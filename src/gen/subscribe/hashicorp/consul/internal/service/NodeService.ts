// Original file: proto/pbservice/node.proto

import type { Weights as _hashicorp_consul_internal_service_Weights, Weights__Output as _hashicorp_consul_internal_service_Weights__Output } from '../../../../hashicorp/consul/internal/service/Weights';
import type { ConnectProxyConfig as _hashicorp_consul_internal_service_ConnectProxyConfig, ConnectProxyConfig__Output as _hashicorp_consul_internal_service_ConnectProxyConfig__Output } from '../../../../hashicorp/consul/internal/service/ConnectProxyConfig';
import type { ServiceConnect as _hashicorp_consul_internal_service_ServiceConnect, ServiceConnect__Output as _hashicorp_consul_internal_service_ServiceConnect__Output } from '../../../../hashicorp/consul/internal/service/ServiceConnect';
import type { RaftIndex as _hashicorp_consul_internal_common_RaftIndex, RaftIndex__Output as _hashicorp_consul_internal_common_RaftIndex__Output } from '../../../../hashicorp/consul/internal/common/RaftIndex';
import type { ServiceAddress as _hashicorp_consul_internal_service_ServiceAddress, ServiceAddress__Output as _hashicorp_consul_internal_service_ServiceAddress__Output } from '../../../../hashicorp/consul/internal/service/ServiceAddress';
import type { EnterpriseMeta as _hashicorp_consul_internal_common_EnterpriseMeta, EnterpriseMeta__Output as _hashicorp_consul_internal_common_EnterpriseMeta__Output } from '../../../../hashicorp/consul/internal/common/EnterpriseMeta';
import type { Locality as _hashicorp_consul_internal_common_Locality, Locality__Output as _hashicorp_consul_internal_common_Locality__Output } from '../../../../hashicorp/consul/internal/common/Locality';
import type { ServicePort as _hashicorp_consul_internal_service_ServicePort, ServicePort__Output as _hashicorp_consul_internal_service_ServicePort__Output } from '../../../../hashicorp/consul/internal/service/ServicePort';
import type { AIConfig as _hashicorp_consul_internal_service_AIConfig, AIConfig__Output as _hashicorp_consul_internal_service_AIConfig__Output } from '../../../../hashicorp/consul/internal/service/AIConfig';

export interface NodeService {
  'Kind'?: (string);
  'ID'?: (string);
  'Service'?: (string);
  'Tags'?: (string)[];
  'Address'?: (string);
  'Meta'?: ({[key: string]: string});
  'Port'?: (number);
  'Weights'?: (_hashicorp_consul_internal_service_Weights | null);
  'EnableTagOverride'?: (boolean);
  'Proxy'?: (_hashicorp_consul_internal_service_ConnectProxyConfig | null);
  'Connect'?: (_hashicorp_consul_internal_service_ServiceConnect | null);
  'LocallyRegisteredAsSidecar'?: (boolean);
  'RaftIndex'?: (_hashicorp_consul_internal_common_RaftIndex | null);
  'TaggedAddresses'?: ({[key: string]: _hashicorp_consul_internal_service_ServiceAddress});
  'EnterpriseMeta'?: (_hashicorp_consul_internal_common_EnterpriseMeta | null);
  'SocketPath'?: (string);
  'PeerName'?: (string);
  'Locality'?: (_hashicorp_consul_internal_common_Locality | null);
  'Ports'?: (_hashicorp_consul_internal_service_ServicePort)[];
  'AI'?: (_hashicorp_consul_internal_service_AIConfig | null);
}

export interface NodeService__Output {
  'Kind': (string);
  'ID': (string);
  'Service': (string);
  'Tags': (string)[];
  'Address': (string);
  'Meta': ({[key: string]: string});
  'Port': (number);
  'Weights': (_hashicorp_consul_internal_service_Weights__Output | null);
  'EnableTagOverride': (boolean);
  'Proxy': (_hashicorp_consul_internal_service_ConnectProxyConfig__Output | null);
  'Connect': (_hashicorp_consul_internal_service_ServiceConnect__Output | null);
  'LocallyRegisteredAsSidecar': (boolean);
  'RaftIndex': (_hashicorp_consul_internal_common_RaftIndex__Output | null);
  'TaggedAddresses': ({[key: string]: _hashicorp_consul_internal_service_ServiceAddress__Output});
  'EnterpriseMeta': (_hashicorp_consul_internal_common_EnterpriseMeta__Output | null);
  'SocketPath': (string);
  'PeerName': (string);
  'Locality': (_hashicorp_consul_internal_common_Locality__Output | null);
  'Ports': (_hashicorp_consul_internal_service_ServicePort__Output)[];
  'AI': (_hashicorp_consul_internal_service_AIConfig__Output | null);
}
