// The project's own legacy v2 transport protos (proto/envoy), loaded once.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as protobuf from 'protobufjs';

function findProtoDir(): string {
  // src/xds → repo root in development; dist/src/xds → repo root after a build.
  for (const up of [join(__dirname, '..', '..'), join(__dirname, '..', '..', '..')]) {
    if (existsSync(join(up, 'proto', 'envoy', 'api', 'v2', 'discovery.proto'))) return join(up, 'proto');
  }
  throw new Error('proto/envoy/api/v2/discovery.proto not found next to the xdshub sources');
}

let root: protobuf.Root | undefined;

export function v2Root(): protobuf.Root {
  if (root) return root;
  const includeDirs = [
    findProtoDir(),
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
