// Original file: proto/pbsubscribe/subscribe.proto

import type { EventBatch as _subscribe_EventBatch, EventBatch__Output as _subscribe_EventBatch__Output } from '../subscribe/EventBatch';
import type { ServiceHealthUpdate as _subscribe_ServiceHealthUpdate, ServiceHealthUpdate__Output as _subscribe_ServiceHealthUpdate__Output } from '../subscribe/ServiceHealthUpdate';
import type { ConfigEntryUpdate as _subscribe_ConfigEntryUpdate, ConfigEntryUpdate__Output as _subscribe_ConfigEntryUpdate__Output } from '../subscribe/ConfigEntryUpdate';
import type { ServiceListUpdate as _subscribe_ServiceListUpdate, ServiceListUpdate__Output as _subscribe_ServiceListUpdate__Output } from '../subscribe/ServiceListUpdate';
import type { Long } from '@grpc/proto-loader';

export interface Event {
  'Index'?: (number | string | Long);
  'EndOfSnapshot'?: (boolean);
  'NewSnapshotToFollow'?: (boolean);
  'EventBatch'?: (_subscribe_EventBatch | null);
  'ServiceHealth'?: (_subscribe_ServiceHealthUpdate | null);
  'ConfigEntry'?: (_subscribe_ConfigEntryUpdate | null);
  'Service'?: (_subscribe_ServiceListUpdate | null);
  'Payload'?: "EndOfSnapshot"|"NewSnapshotToFollow"|"EventBatch"|"ServiceHealth"|"ConfigEntry"|"Service";
}

export interface Event__Output {
  'Index': (string);
  'EndOfSnapshot'?: (boolean);
  'NewSnapshotToFollow'?: (boolean);
  'EventBatch'?: (_subscribe_EventBatch__Output | null);
  'ServiceHealth'?: (_subscribe_ServiceHealthUpdate__Output | null);
  'ConfigEntry'?: (_subscribe_ConfigEntryUpdate__Output | null);
  'Service'?: (_subscribe_ServiceListUpdate__Output | null);
  'Payload'?: "EndOfSnapshot"|"NewSnapshotToFollow"|"EventBatch"|"ServiceHealth"|"ConfigEntry"|"Service";
}
