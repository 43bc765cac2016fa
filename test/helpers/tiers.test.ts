// Tests tell their tier (docs/testing.md): a file that is not `.int.` must not
// start a hub (which listens on loopback ports), a server, or a process.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';

const ROOT = join(__dirname, '..');
/** What opens a socket or starts a process: the shared helpers' names and Node's own calls. */
const OPENS =
  /\b(startHub|aclHub|spawnHub|spawnServer|startRedis|spawnTracked|forkTracked|execFileTracked|bindAsync|createServer)\(|\.listen\(/;

test('a test file that opens a socket or starts a process is named .int.test.ts', () => {
  const offenders: string[] = [];
  for (const file of readdirSync(ROOT, { recursive: true }) as string[]) {
    if (!file.endsWith('.test.ts') || file.endsWith('.int.test.ts')) continue;
    const text = readFileSync(join(ROOT, file), 'utf8');
    if (OPENS.test(text)) offenders.push(relative(ROOT, join(ROOT, file)));
  }
  assert.deepEqual(offenders, []);
});
