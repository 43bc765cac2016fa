// Where the project's own .proto files are: `proto/` at the package root, found
// from this file whether it runs from src/ (tsx) or dist/src/ (a build, npm start).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

let found: string | undefined;

export function protoDir(): string {
  if (found !== undefined) return found;
  for (let dir = __dirname; ; dir = dirname(dir)) {
    const candidate = join(dir, 'proto');
    if (existsSync(join(candidate, 'pbsubscribe', 'subscribe.proto'))) return (found = candidate);
    if (dirname(dir) === dir) break;
  }
  throw new Error(`proto/pbsubscribe/subscribe.proto not found above ${__dirname}: the package's proto/ directory is missing`);
}
