// Original file: proto/pbservice/healthcheck.proto

import type { Duration as _google_protobuf_Duration, Duration__Output as _google_protobuf_Duration__Output } from '../../../../google/protobuf/Duration';
import type { HeaderValue as _hashicorp_consul_internal_service_HeaderValue, HeaderValue__Output as _hashicorp_consul_internal_service_HeaderValue__Output } from '../../../../hashicorp/consul/internal/service/HeaderValue';

export interface CheckType {
  'CheckID'?: (string);
  'Name'?: (string);
  'Status'?: (string);
  'Notes'?: (string);
  'ScriptArgs'?: (string)[];
  'HTTP'?: (string);
  'Method'?: (string);
  'TCP'?: (string);
  'Interval'?: (_google_protobuf_Duration | null);
  'AliasNode'?: (string);
  'AliasService'?: (string);
  'DockerContainerID'?: (string);
  'Shell'?: (string);
  'GRPC'?: (string);
  'GRPCUseTLS'?: (boolean);
  'TLSSkipVerify'?: (boolean);
  'Timeout'?: (_google_protobuf_Duration | null);
  'TTL'?: (_google_protobuf_Duration | null);
  'DeregisterCriticalServiceAfter'?: (_google_protobuf_Duration | null);
  'Header'?: ({[key: string]: _hashicorp_consul_internal_service_HeaderValue});
  'SuccessBeforePassing'?: (number);
  'FailuresBeforeCritical'?: (number);
  'ProxyHTTP'?: (string);
  'ProxyGRPC'?: (string);
  'OutputMaxSize'?: (number);
  'Body'?: (string);
  'TLSServerName'?: (string);
  'H2PING'?: (string);
  'FailuresBeforeWarning'?: (number);
  'H2PingUseTLS'?: (boolean);
  'DisableRedirects'?: (boolean);
  'UDP'?: (string);
  'OSService'?: (string);
  'TCPUseTLS'?: (boolean);
  'SessionName'?: (string);
}

export interface CheckType__Output {
  'CheckID': (string);
  'Name': (string);
  'Status': (string);
  'Notes': (string);
  'ScriptArgs': (string)[];
  'HTTP': (string);
  'Method': (string);
  'TCP': (string);
  'Interval': (_google_protobuf_Duration__Output | null);
  'AliasNode': (string);
  'AliasService': (string);
  'DockerContainerID': (string);
  'Shell': (string);
  'GRPC': (string);
  'GRPCUseTLS': (boolean);
  'TLSSkipVerify': (boolean);
  'Timeout': (_google_protobuf_Duration__Output | null);
  'TTL': (_google_protobuf_Duration__Output | null);
  'DeregisterCriticalServiceAfter': (_google_protobuf_Duration__Output | null);
  'Header': ({[key: string]: _hashicorp_consul_internal_service_HeaderValue__Output});
  'SuccessBeforePassing': (number);
  'FailuresBeforeCritical': (number);
  'ProxyHTTP': (string);
  'ProxyGRPC': (string);
  'OutputMaxSize': (number);
  'Body': (string);
  'TLSServerName': (string);
  'H2PING': (string);
  'FailuresBeforeWarning': (number);
  'H2PingUseTLS': (boolean);
  'DisableRedirects': (boolean);
  'UDP': (string);
  'OSService': (string);
  'TCPUseTLS': (boolean);
  'SessionName': (string);
}
