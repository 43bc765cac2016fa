// Original file: proto/pbcommon/common.proto

import type { Struct as _google_protobuf_Struct, Struct__Output as _google_protobuf_Struct__Output } from '../../../../google/protobuf/Struct';

export interface EnvoyExtension {
  'Name'?: (string);
  'Required'?: (boolean);
  'Arguments'?: (_google_protobuf_Struct | null);
  'ConsulVersion'?: (string);
  'EnvoyVersion'?: (string);
}

export interface EnvoyExtension__Output {
  'Name': (string);
  'Required': (boolean);
  'Arguments': (_google_protobuf_Struct__Output | null);
  'ConsulVersion': (string);
  'EnvoyVersion': (string);
}
