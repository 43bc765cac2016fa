// Original file: proto/pbservice/service.proto

import type { Struct as _google_protobuf_Struct, Struct__Output as _google_protobuf_Struct__Output } from '../../../../google/protobuf/Struct';
import type { Upstream as _hashicorp_consul_internal_service_Upstream, Upstream__Output as _hashicorp_consul_internal_service_Upstream__Output } from '../../../../hashicorp/consul/internal/service/Upstream';
import type { MeshGatewayConfig as _hashicorp_consul_internal_service_MeshGatewayConfig, MeshGatewayConfig__Output as _hashicorp_consul_internal_service_MeshGatewayConfig__Output } from '../../../../hashicorp/consul/internal/service/MeshGatewayConfig';
import type { ExposeConfig as _hashicorp_consul_internal_service_ExposeConfig, ExposeConfig__Output as _hashicorp_consul_internal_service_ExposeConfig__Output } from '../../../../hashicorp/consul/internal/service/ExposeConfig';
import type { TransparentProxyConfig as _hashicorp_consul_internal_service_TransparentProxyConfig, TransparentProxyConfig__Output as _hashicorp_consul_internal_service_TransparentProxyConfig__Output } from '../../../../hashicorp/consul/internal/service/TransparentProxyConfig';
import type { EnvoyExtension as _hashicorp_consul_internal_common_EnvoyExtension, EnvoyExtension__Output as _hashicorp_consul_internal_common_EnvoyExtension__Output } from '../../../../hashicorp/consul/internal/common/EnvoyExtension';
import type { AccessLogsConfig as _hashicorp_consul_internal_service_AccessLogsConfig, AccessLogsConfig__Output as _hashicorp_consul_internal_service_AccessLogsConfig__Output } from '../../../../hashicorp/consul/internal/service/AccessLogsConfig';
import type { ServicePort as _hashicorp_consul_internal_service_ServicePort, ServicePort__Output as _hashicorp_consul_internal_service_ServicePort__Output } from '../../../../hashicorp/consul/internal/service/ServicePort';

export interface ConnectProxyConfig {
  'DestinationServiceName'?: (string);
  'DestinationServiceID'?: (string);
  'LocalServiceAddress'?: (string);
  'LocalServicePort'?: (number);
  'Config'?: (_google_protobuf_Struct | null);
  'Upstreams'?: (_hashicorp_consul_internal_service_Upstream)[];
  'MeshGateway'?: (_hashicorp_consul_internal_service_MeshGatewayConfig | null);
  'Expose'?: (_hashicorp_consul_internal_service_ExposeConfig | null);
  'Mode'?: (string);
  'TransparentProxy'?: (_hashicorp_consul_internal_service_TransparentProxyConfig | null);
  'LocalServiceSocketPath'?: (string);
  'EnvoyExtensions'?: (_hashicorp_consul_internal_common_EnvoyExtension)[];
  'AccessLogs'?: (_hashicorp_consul_internal_service_AccessLogsConfig | null);
  'LocalServicePorts'?: (_hashicorp_consul_internal_service_ServicePort)[];
}

export interface ConnectProxyConfig__Output {
  'DestinationServiceName': (string);
  'DestinationServiceID': (string);
  'LocalServiceAddress': (string);
  'LocalServicePort': (number);
  'Config': (_google_protobuf_Struct__Output | null);
  'Upstreams': (_hashicorp_consul_internal_service_Upstream__Output)[];
  'MeshGateway': (_hashicorp_consul_internal_service_MeshGatewayConfig__Output | null);
  'Expose': (_hashicorp_consul_internal_service_ExposeConfig__Output | null);
  'Mode': (string);
  'TransparentProxy': (_hashicorp_consul_internal_service_TransparentProxyConfig__Output | null);
  'LocalServiceSocketPath': (string);
  'EnvoyExtensions': (_hashicorp_consul_internal_common_EnvoyExtension__Output)[];
  'AccessLogs': (_hashicorp_consul_internal_service_AccessLogsConfig__Output | null);
  'LocalServicePorts': (_hashicorp_consul_internal_service_ServicePort__Output)[];
}
