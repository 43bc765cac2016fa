// Every `serve` command line README.md and docs/*.md show (in code blocks and
// inline code) is read from the docs, parsed with the hub's own parser, and run
// with the compiled CLI (`node dist/src/cli/main.js serve …`): the hub must
// start and answer. Only ports (to free ones), `redis://127.0.0.1:6379` (to a
// real redis-server started here) and the fan-out upstream's addresses (to a
// hub started here) are swapped; each runs in its own directory, so a relative
// --data-dir lands there, as do the PEM files a TLS command names (made here
// with openssl; the hub is then asked over mutual TLS). A Sentinel store is
// parsed, not run.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { parseConfig } from '../../src/config';
import { optionsHelp } from '../../src/config-options';
import { makeCa, type Pem } from '../helpers/certs';
import { BUILT_MAIN, REPO_ROOT, type SpawnedHub, spawnServer } from '../helpers/hub';
import { type RunningRedis, startRedis } from '../helpers/redis';
import { tmpDir } from '../helpers/tmp';

interface DocCommand {
  where: string;
  text: string;
  env: Record<string, string>;
  args: string[];
}

const DOCS = [
  'README.md',
  ...readdirSync(join(REPO_ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const COMMAND = /(?:^|[\s(`])((?:[A-Z_]+=\S+\s+)*(?:xdshub|node dist\/src\/cli\/main\.js) serve\b[^\n]*)/;
/** What ends a command on its line: a comment, a pipe, a background `&`, `&&`, `;`, a redirection. */
const END = /\s(?:#|\|\|?|&&?|;|>)\s?|\s&$/;

/** Shell words, with single and double quotes; `$(uuidgen)` is the one substitution the docs use. */
function words(text: string): string[] {
  const out: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (const m of text.replaceAll('$(uuidgen)', '0e1c5c2a-6c1f-4d1e-9a59-4c8a2f3b7d10').matchAll(re))
    out.push(m[1] ?? m[2] ?? m[3]!);
  return out;
}

function commandsOf(file: string): DocCommand[] {
  const text = readFileSync(join(REPO_ROOT, file), 'utf8');
  const found: { where: string; line: string }[] = [];
  // Code blocks: one command a line (a trailing backslash continues it).
  const withoutBlocks = text.replace(/```[^\n]*\n([\s\S]*?)```/g, (_all, body: string) => {
    // (A comment is no command, even one that names `xdshub serve`.)
    for (const line of body.replace(/\\\n\s*/g, ' ').split('\n'))
      found.push({ where: `${file} (code block)`, line: line.split(/\s#\s/)[0]! });
    return '';
  });
  // Inline code, which may run over a line break.
  for (const m of withoutBlocks.matchAll(/`([^`]+)`/g))
    found.push({ where: `${file} (inline)`, line: m[1]!.replace(/\s*\n\s*/g, ' ') });
  const out: DocCommand[] = [];
  for (const { where, line } of found) {
    const m = COMMAND.exec(line);
    if (!m) continue;
    const cut = m[1]!.split(END)[0]!.trim();
    const all = words(cut);
    const at = all.indexOf('serve');
    const prefix = all.slice(0, at);
    const assignments = prefix.filter((w) => /^[A-Z_]+=/.test(w));
    const env = Object.fromEntries(assignments.map((w) => [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)]));
    out.push({ where, text: cut, env, args: all.slice(at + 1) });
  }
  return out;
}

const COMMANDS = [...new Map(DOCS.flatMap(commandsOf).map((c) => [`${JSON.stringify(c.env)} ${c.text}`, c])).values()];
/** Usage shapes, not commands: `xdshub serve [flags]`, `xdshub serve --upstream …`. */
const isTemplate = (c: DocCommand) => c.args.some((a) => a.includes('…') || a.startsWith('['));
const RUNNABLE = COMMANDS.filter((c) => !isTemplate(c));

const cleanups: (() => Promise<unknown>)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

test('the docs show serve commands (the ACL one of docs/security.md among them), and each parses', () => {
  assert.ok(RUNNABLE.length >= 8, RUNNABLE.map((c) => c.text).join('\n'));
  assert.ok(
    RUNNABLE.some((c) => c.where.startsWith('docs/security.md') && c.args.includes('--acl-enabled')),
    'docs/security.md: serve --acl-enabled …',
  );
  assert.ok(
    COMMANDS.filter(isTemplate).length <= 3,
    `templates: ${COMMANDS.filter(isTemplate)
      .map((c) => c.text)
      .join('; ')}`,
  );
  for (const c of RUNNABLE.filter((r) => !r.args.includes('--help'))) {
    assert.doesNotThrow(() => parseConfig(c.args, c.env), `${c.where}: ${c.text}`);
  }
});

function spawnBuilt(args: string[], env: Record<string, string>, cwd: string): Promise<SpawnedHub> {
  const options = { cwd, env: { ...process.env, XDSHUB_LOG_LEVEL: 'warn', ...env } };
  return spawnServer(
    process.execPath,
    [BUILT_MAIN, 'serve', ...args],
    options,
    /^xdshub listening http=(\S+) grpc=(\S+)/,
    'hub',
  ).then(({ match, ...s }) => ({ ...s, httpUrl: match[1]!, grpcAddress: match[2]! }));
}

/** The files a TLS command names, made in its directory; returns what a client needs to reach the hub. */
async function tlsFiles(args: string[], cwd: string): Promise<{ ca: string; client: Pem } | undefined> {
  const file = (flag: string) => args[args.indexOf(flag) + 1]!;
  if (!args.includes('--tls-cert')) return undefined;
  const ca = await makeCa(cwd);
  const server = await ca.issue('hub', 'server');
  writeFileSync(join(cwd, file('--tls-cert')), server.cert);
  writeFileSync(join(cwd, file('--tls-key')), server.key);
  if (args.includes('--tls-ca')) writeFileSync(join(cwd, file('--tls-ca')), ca.cert);
  return { ca: ca.cert, client: await ca.issue('docs-client', 'client') };
}

function leader(
  url: string,
  tls: { ca: string; client: Pem } | undefined,
): Promise<{ status: number; policy: string | undefined }> {
  if (!tls) {
    return fetch(`${url}/v1/status/leader`).then(async (r) => {
      await r.arrayBuffer();
      return { status: r.status, policy: r.headers.get('x-consul-default-acl-policy') ?? undefined };
    });
  }
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/v1/status/leader`,
      { ca: tls.ca, cert: tls.client.cert, key: tls.client.key },
      (res) => {
        const policy = res.headers['x-consul-default-acl-policy'] as string | undefined;
        res.resume().on('end', () => resolve({ status: res.statusCode ?? 0, policy }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

let redis: Promise<RunningRedis> | undefined;
let upstream: Promise<SpawnedHub> | undefined;

/** The command with its ports made free and the addresses it names pointed at what this test started. */
async function runnable(c: DocCommand, cwd: string): Promise<string[]> {
  const args = [...c.args];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--store' && args[i + 1] === 'redis://127.0.0.1:6379') {
      redis ??= startRedis().then((r) => {
        cleanups.push(() => r.stop());
        return r;
      });
      args[i + 1] = (await redis).url;
    }
    if (args[i] === '--upstream' || args[i] === '--upstream-http') {
      upstream ??= spawnBuilt(['--store', 'memory', '--http-port', '0', '--grpc-port', '0'], {}, cwd).then((h) => {
        cleanups.push(() => h.stop('SIGKILL'));
        return h;
      });
      const hub = await upstream;
      args[i + 1] = args[i] === '--upstream' ? hub.grpcAddress : hub.httpUrl;
    }
  }
  return [...args, '--http-port=0', '--grpc-port=0'];
}

for (const c of RUNNABLE) {
  const sentinel = c.args.some((a) => a.startsWith('redis-sentinel://'));
  const help = c.args.includes('--help');
  const does = sentinel
    ? 'parses (a Sentinel store is not run here)'
    : help
      ? 'prints the flag table'
      : 'starts the compiled hub';
  test(`${c.where}: \`${c.text}\` ${does}`, async () => {
    if (help) {
      const res = spawnSync(process.execPath, [BUILT_MAIN, 'serve', ...c.args], { cwd: REPO_ROOT, encoding: 'utf8' });
      assert.equal(res.status, 0, res.stderr);
      assert.equal(res.stdout, optionsHelp());
      return;
    }
    if (sentinel) {
      assert.equal(parseConfig(c.args, c.env).store.kind, 'redis');
      return;
    }
    const dir = await tmpDir('docs-serve');
    cleanups.push(() => dir.cleanup());
    const tls = await tlsFiles(c.args, dir.path);
    const hub = await spawnBuilt(await runnable(c, dir.path), c.env, dir.path);
    cleanups.push(() => hub.stop('SIGKILL'));
    const res = await leader(hub.httpUrl, tls);
    assert.equal(res.status, 200);
    if (c.args.includes('--acl-enabled')) assert.equal(res.policy, parseConfig(c.args, c.env).aclDefaultPolicy);
    assert.equal(await hub.stop('SIGTERM'), 0, hub.stderr());
  });
}
