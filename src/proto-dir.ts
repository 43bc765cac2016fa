// Where the project's own .proto files are (`proto/` at the package root, found
// from this file whether it runs from src/ (tsx) or dist/src/ (npm start)), and
// the one .proto loader every protobufjs Root of the hub is built with.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as protobuf from 'protobufjs';

let found: string | undefined;

export function protoDir(): string {
  if (found !== undefined) return found;
  for (let dir = __dirname; ; dir = dirname(dir)) {
    const candidate = join(dir, 'proto');
    if (existsSync(join(candidate, 'pbsubscribe', 'subscribe.proto'))) return (found = candidate);
    if (dirname(dir) === dir) break;
  }
  throw new Error(
    `proto/pbsubscribe/subscribe.proto not found above ${__dirname}: the package's proto/ directory is missing`,
  );
}

/**
 * The one way the hub loads .proto files into a protobufjs Root: imports are
 * looked up in `includeDirs` in order (as protoc's -I), and a file found in
 * none is left to protobufjs, which bundles google/protobuf/*.proto.
 */
export function loadProtoRoot(
  includeDirs: readonly string[],
  files: readonly string[],
  options: { keepCase?: boolean } = {},
): protobuf.Root {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => {
    for (const dir of includeDirs) {
      const full = join(dir, target);
      if (existsSync(full)) return full;
    }
    return target;
  };
  root.loadSync([...files], options);
  root.resolveAll();
  return root;
}
