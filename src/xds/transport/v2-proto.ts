// The project's own legacy v2 transport protos (proto/envoy), loaded once.
import { dirname, join } from 'node:path';
import type * as protobuf from 'protobufjs';
import { loadProtoRoot, protoDir } from '../../proto-dir';

let root: protobuf.Root | undefined;

export function v2Root(): protobuf.Root {
  return (root ??= loadProtoRoot(
    [
      protoDir(),
      join(dirname(require.resolve('@grpc/grpc-js-xds/package.json')), 'deps', 'googleapis'),
      dirname(require.resolve('protobufjs/package.json')),
    ],
    [
      'envoy/api/v2/discovery.proto',
      'envoy/api/v2/ads.proto',
      'envoy/api/v2/lds.proto',
      'envoy/api/v2/cds.proto',
      'envoy/api/v2/eds.proto',
      'envoy/api/v2/rds.proto',
      'envoy/service/discovery/v2/ads.proto',
    ],
  ));
}
