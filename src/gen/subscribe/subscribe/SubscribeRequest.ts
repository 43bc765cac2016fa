// Original file: proto/pbsubscribe/subscribe.proto

import type { Topic as _subscribe_Topic, Topic__Output as _subscribe_Topic__Output } from '../subscribe/Topic';
import type { NamedSubject as _subscribe_NamedSubject, NamedSubject__Output as _subscribe_NamedSubject__Output } from '../subscribe/NamedSubject';
import type { Long } from '@grpc/proto-loader';

export interface SubscribeRequest {
  'Topic'?: (_subscribe_Topic);
  'Key'?: (string);
  'Token'?: (string);
  'Index'?: (number | string | Long);
  'Datacenter'?: (string);
  'Namespace'?: (string);
  'Partition'?: (string);
  'PeerName'?: (string);
  'WildcardSubject'?: (boolean);
  'NamedSubject'?: (_subscribe_NamedSubject | null);
  'Subject'?: "WildcardSubject"|"NamedSubject";
}

export interface SubscribeRequest__Output {
  'Topic': (_subscribe_Topic__Output);
  'Key': (string);
  'Token': (string);
  'Index': (string);
  'Datacenter': (string);
  'Namespace': (string);
  'Partition': (string);
  'PeerName': (string);
  'WildcardSubject'?: (boolean);
  'NamedSubject'?: (_subscribe_NamedSubject__Output | null);
  'Subject'?: "WildcardSubject"|"NamedSubject";
}
