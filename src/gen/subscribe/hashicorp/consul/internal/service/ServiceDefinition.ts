// Original file: proto/pbservice/service.proto

import type { CheckType as _hashicorp_consul_internal_service_CheckType, CheckType__Output as _hashicorp_consul_internal_service_CheckType__Output } from '../../../../hashicorp/consul/internal/service/CheckType';
import type { Weights as _hashicorp_consul_internal_service_Weights, Weights__Output as _hashicorp_consul_internal_service_Weights__Output } from '../../../../hashicorp/consul/internal/service/Weights';
import type { ConnectProxyConfig as _hashicorp_consul_internal_service_ConnectProxyConfig, ConnectProxyConfig__Output as _hashicorp_consul_internal_service_ConnectProxyConfig__Output } from '../../../../hashicorp/consul/internal/service/ConnectProxyConfig';
import type { ServiceConnect as _hashicorp_consul_internal_service_ServiceConnect, ServiceConnect__Output as _hashicorp_consul_internal_service_ServiceConnect__Output } from '../../../../hashicorp/consul/internal/service/ServiceConnect';
import type { ServiceAddress as _hashicorp_consul_internal_service_ServiceAddress, ServiceAddress__Output as _hashicorp_consul_internal_service_ServiceAddress__Output } from '../../../../hashicorp/consul/internal/service/ServiceAddress';
import type { EnterpriseMeta as _hashicorp_consul_internal_common_EnterpriseMeta, EnterpriseMeta__Output as _hashicorp_consul_internal_common_EnterpriseMeta__Output } from '../../../../hashicorp/consul/internal/common/EnterpriseMeta';
import type { Locality as _hashicorp_consul_internal_common_Locality, Locality__Output as _hashicorp_consul_internal_common_Locality__Output } from '../../../../hashicorp/consul/internal/common/Locality';
import type { ServicePort as _hashicorp_consul_internal_service_ServicePort, ServicePort__Output as _hashicorp_consul_internal_service_ServicePort__Output } from '../../../../hashicorp/consul/internal/service/ServicePort';
import type { AIConfig as _hashicorp_consul_internal_service_AIConfig, AIConfig__Output as _hashicorp_consul_internal_service_AIConfig__Output } from '../../../../hashicorp/consul/internal/service/AIConfig';

export interface ServiceDefinition {
  'Kind'?: (string);
  'ID'?: (string);
  'Name'?: (string);
  'Tags'?: (string)[];
  'Address'?: (string);
  'Meta'?: ({[key: string]: string});
  'Port'?: (number);
  'Check'?: (_hashicorp_consul_internal_service_CheckType | null);
  'Checks'?: (_hashicorp_consul_internal_service_CheckType)[];
  'Weights'?: (_hashicorp_consul_internal_service_Weights | null);
  'Token'?: (string);
  'EnableTagOverride'?: (boolean);
  'Proxy'?: (_hashicorp_consul_internal_service_ConnectProxyConfig | null);
  'Connect'?: (_hashicorp_consul_internal_service_ServiceConnect | null);
  'TaggedAddresses'?: ({[key: string]: _hashicorp_consul_internal_service_ServiceAddress});
  'EnterpriseMeta'?: (_hashicorp_consul_internal_common_EnterpriseMeta | null);
  'SocketPath'?: (string);
  'Locality'?: (_hashicorp_consul_internal_common_Locality | null);
  'Ports'?: (_hashicorp_consul_internal_service_ServicePort)[];
  'AI'?: (_hashicorp_consul_internal_service_AIConfig | null);
}

export interface ServiceDefinition__Output {
  'Kind': (string);
  'ID': (string);
  'Name': (string);
  'Tags': (string)[];
  'Address': (string);
  'Meta': ({[key: string]: string});
  'Port': (number);
  'Check': (_hashicorp_consul_internal_service_CheckType__Output | null);
  'Checks': (_hashicorp_consul_internal_service_CheckType__Output)[];
  'Weights': (_hashicorp_consul_internal_service_Weights__Output | null);
  'Token': (string);
  'EnableTagOverride': (boolean);
  'Proxy': (_hashicorp_consul_internal_service_ConnectProxyConfig__Output | null);
  'Connect': (_hashicorp_consul_internal_service_ServiceConnect__Output | null);
  'TaggedAddresses': ({[key: string]: _hashicorp_consul_internal_service_ServiceAddress__Output});
  'EnterpriseMeta': (_hashicorp_consul_internal_common_EnterpriseMeta__Output | null);
  'SocketPath': (string);
  'Locality': (_hashicorp_consul_internal_common_Locality__Output | null);
  'Ports': (_hashicorp_consul_internal_service_ServicePort__Output)[];
  'AI': (_hashicorp_consul_internal_service_AIConfig__Output | null);
}
