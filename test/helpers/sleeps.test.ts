// Tests wait on conditions, never on clocks (docs/testing.md, "Waiting"): this scans
// every test/**/*.ts for a fixed sleep — a promise resolved by a bare timer, or the
// promise form of setTimeout — outside the few files that pace themselves on purpose.
// A wait on a condition is `until`; a wait whose subject is time is `letTimePass`.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from './hub';

/** Files allowed to sleep, each with its reason. Keep this short. */
const ALLOWED = new Map([
  ['test/helpers/until.ts', "until's poll period and letTimePass: the one place a test's wait is a timer"],
  ['test/envoy/open-loop.ts', 'a load generator: each request leaves on its schedule (open loop)'],
  [
    'test/xds/e2e/grpc-js-client.ts',
    "a client program run as a child process: its own retry pause, as a real client's",
  ],
]);

const ST = 'setTimeout';
const SLEEPS: ReadonlyArray<{ what: string; pattern: RegExp }> = [
  {
    // A timer whose callback is the promise's own resolve: with or without braces, a type argument or `timer =`.
    what: 'a promise resolved by a bare timer',
    pattern: new RegExp(
      String.raw`new\s+Promise\s*(?:<[^>]*>)?\(\s*\(?\s*(\w+)[^=]*=>\s*[{(]?\s*(?:\w+\s*=\s*)?${ST}\(\s*\1\s*[,)]`,
    ),
  },
  {
    what: 'the promise form of setTimeout (node:timers/promises)',
    pattern: new RegExp(
      String.raw`import\s*\{[^}]*\b${ST}\b[^}]*\}\s*from\s*['"](?:node:)?timers/promises['"]|timers/promises['"]\s*\)\s*\.\s*${ST}\b`,
    ),
  },
];

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : tsFiles(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

/** The fixed sleeps in `text`, as `line: what`. */
function sleepsIn(text: string): string[] {
  const found: string[] = [];
  for (const { what, pattern } of SLEEPS) {
    const global = new RegExp(pattern.source, 'g');
    for (const m of text.matchAll(global)) found.push(`${text.slice(0, m.index).split('\n').length}: ${what}`);
  }
  return found;
}

test('the scan finds every spelling of a fixed sleep and passes timers that are no sleep', () => {
  const sleeps = [
    `await new Promise((r) => ${ST}(r, 30));`,
    `await new Promise<void>((resolve) => ${ST}(resolve, 300));`,
    `await new Promise((resolve) => {\n  ${ST}(resolve, 5);\n});`,
    `const late = new Promise((r) => (timer = ${ST}(r, ms)));`,
    `import { ${ST} as sleep } from 'node:timers/promises';`,
    `import { setImmediate as y, ${ST} as sleep } from "timers/promises";`,
    `const pause = require('node:timers/promises').${ST};`,
  ];
  for (const s of sleeps) assert.equal(sleepsIn(s).length, 1, s);
  const notSleeps = [
    `new Promise((_, reject) => ${ST}(() => reject(new Error('hang')), guard).unref())`,
    `new Promise((r) => (timer = ${ST}(() => r('pending'), ms)))`,
    `const timer = ${ST}(() => controller.abort(), waitMs);`,
    `if (held.length > 0) timer = ${ST}(release, held[0]!.due - Date.now());`,
    `import { setImmediate as yieldToLoop } from 'node:timers/promises';`,
    `t.mock.timers.enable({ apis: ['${ST}'] });`,
  ];
  for (const s of notSleeps) assert.deepEqual(sleepsIn(s), [], s);
});

test('no test file sleeps on a fixed timer outside the allow-list', () => {
  const offenders: string[] = [];
  const files = tsFiles(join(REPO_ROOT, 'test')).map((f) => relative(REPO_ROOT, f).split('\\').join('/'));
  for (const file of files) {
    if (ALLOWED.has(file)) continue;
    for (const hit of sleepsIn(readFileSync(join(REPO_ROOT, file), 'utf8'))) offenders.push(`${file}:${hit}`);
  }
  assert.deepEqual(offenders, [], 'wait with until(condition, what), or letTimePass(ms, why) when time is the subject');
  for (const file of ALLOWED.keys())
    assert.ok(files.includes(file), `allow-list entry ${file} names no file (remove it)`);
});
