// Original file: proto/pbservice/healthcheck.proto

import type { HeaderValue as _hashicorp_consul_internal_service_HeaderValue, HeaderValue__Output as _hashicorp_consul_internal_service_HeaderValue__Output } from '../../../../hashicorp/consul/internal/service/HeaderValue';
import type { Duration as _google_protobuf_Duration, Duration__Output as _google_protobuf_Duration__Output } from '../../../../google/protobuf/Duration';

export interface HealthCheckDefinition {
  'HTTP'?: (string);
  'TLSSkipVerify'?: (boolean);
  'Header'?: ({[key: string]: _hashicorp_consul_internal_service_HeaderValue});
  'Method'?: (string);
  'TCP'?: (string);
  'Interval'?: (_google_protobuf_Duration | null);
  'Timeout'?: (_google_protobuf_Duration | null);
  'DeregisterCriticalServiceAfter'?: (_google_protobuf_Duration | null);
  'OutputMaxSize'?: (number);
  'ScriptArgs'?: (string)[];
  'DockerContainerID'?: (string);
  'Shell'?: (string);
  'GRPC'?: (string);
  'GRPCUseTLS'?: (boolean);
  'AliasNode'?: (string);
  'AliasService'?: (string);
  'TTL'?: (_google_protobuf_Duration | null);
  'Body'?: (string);
  'TLSServerName'?: (string);
  'H2PING'?: (string);
  'H2PingUseTLS'?: (boolean);
  'DisableRedirects'?: (boolean);
  'UDP'?: (string);
  'OSService'?: (string);
  'TCPUseTLS'?: (boolean);
  'SessionName'?: (string);
}

export interface HealthCheckDefinition__Output {
  'HTTP': (string);
  'TLSSkipVerify': (boolean);
  'Header': ({[key: string]: _hashicorp_consul_internal_service_HeaderValue__Output});
  'Method': (string);
  'TCP': (string);
  'Interval': (_google_protobuf_Duration__Output | null);
  'Timeout': (_google_protobuf_Duration__Output | null);
  'DeregisterCriticalServiceAfter': (_google_protobuf_Duration__Output | null);
  'OutputMaxSize': (number);
  'ScriptArgs': (string)[];
  'DockerContainerID': (string);
  'Shell': (string);
  'GRPC': (string);
  'GRPCUseTLS': (boolean);
  'AliasNode': (string);
  'AliasService': (string);
  'TTL': (_google_protobuf_Duration__Output | null);
  'Body': (string);
  'TLSServerName': (string);
  'H2PING': (string);
  'H2PingUseTLS': (boolean);
  'DisableRedirects': (boolean);
  'UDP': (string);
  'OSService': (string);
  'TCPUseTLS': (boolean);
  'SessionName': (string);
}
