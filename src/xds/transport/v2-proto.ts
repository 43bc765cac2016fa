// The project's own legacy v2 transport protos (proto/envoy), loaded once.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as protobuf from 'protobufjs';
import { protoDir } from '../../proto-dir';


let root: protobuf.Root | undefined;

export function v2Root(): protobuf.Root {
  if (root) return root;
  const includeDirs = [
    protoDir(),
    join(dirname(require.resolve('@grpc/grpc-js-xds/package.json')), 'deps', 'googleapis'),
    dirname(require.resolve('protobufjs/package.json')),
  ];
  const r = new protobuf.Root();
  r.resolvePath = (_origin, target) => {
    for (const dir of includeDirs) {
      const full = join(dir, target);
      if (existsSync(full)) return full;
    }
    return target;
  };
  r.loadSync([
    'envoy/api/v2/discovery.proto',
    'envoy/api/v2/ads.proto',
    'envoy/api/v2/lds.proto',
    'envoy/api/v2/cds.proto',
    'envoy/api/v2/eds.proto',
    'envoy/api/v2/rds.proto',
    'envoy/service/discovery/v2/ads.proto',
  ]);
  r.resolveAll();
  root = r;
  return r;
}
