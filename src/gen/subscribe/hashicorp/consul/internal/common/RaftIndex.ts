// Original file: proto/pbcommon/common.proto

import type { Long } from '@grpc/proto-loader';

export interface RaftIndex {
  'CreateIndex'?: (number | string | Long);
  'ModifyIndex'?: (number | string | Long);
}

export interface RaftIndex__Output {
  'CreateIndex': (string);
  'ModifyIndex': (string);
}
