// Original file: proto/pbservice/healthcheck.proto

import type { HealthCheckDefinition as _hashicorp_consul_internal_service_HealthCheckDefinition, HealthCheckDefinition__Output as _hashicorp_consul_internal_service_HealthCheckDefinition__Output } from '../../../../hashicorp/consul/internal/service/HealthCheckDefinition';
import type { RaftIndex as _hashicorp_consul_internal_common_RaftIndex, RaftIndex__Output as _hashicorp_consul_internal_common_RaftIndex__Output } from '../../../../hashicorp/consul/internal/common/RaftIndex';
import type { EnterpriseMeta as _hashicorp_consul_internal_common_EnterpriseMeta, EnterpriseMeta__Output as _hashicorp_consul_internal_common_EnterpriseMeta__Output } from '../../../../hashicorp/consul/internal/common/EnterpriseMeta';

export interface HealthCheck {
  'Node'?: (string);
  'CheckID'?: (string);
  'Name'?: (string);
  'Status'?: (string);
  'Notes'?: (string);
  'Output'?: (string);
  'ServiceID'?: (string);
  'ServiceName'?: (string);
  'ServiceTags'?: (string)[];
  'Definition'?: (_hashicorp_consul_internal_service_HealthCheckDefinition | null);
  'RaftIndex'?: (_hashicorp_consul_internal_common_RaftIndex | null);
  'Type'?: (string);
  'EnterpriseMeta'?: (_hashicorp_consul_internal_common_EnterpriseMeta | null);
  'ExposedPort'?: (number);
  'Interval'?: (string);
  'Timeout'?: (string);
  'PeerName'?: (string);
}

export interface HealthCheck__Output {
  'Node': (string);
  'CheckID': (string);
  'Name': (string);
  'Status': (string);
  'Notes': (string);
  'Output': (string);
  'ServiceID': (string);
  'ServiceName': (string);
  'ServiceTags': (string)[];
  'Definition': (_hashicorp_consul_internal_service_HealthCheckDefinition__Output | null);
  'RaftIndex': (_hashicorp_consul_internal_common_RaftIndex__Output | null);
  'Type': (string);
  'EnterpriseMeta': (_hashicorp_consul_internal_common_EnterpriseMeta__Output | null);
  'ExposedPort': (number);
  'Interval': (string);
  'Timeout': (string);
  'PeerName': (string);
}
