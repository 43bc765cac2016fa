// The real `consul` CLI (v1.16.1) against a spawned hub: kv put/get/delete/
// export/import, `consul watch` on a key and a prefix, and `consul lock`: two holders of one prefix never run at
// once, and killing the holder frees the lock only after its session's TTL and
// lock delay (docs/kv.md).

import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, test } from 'node:test';
import { consulCli } from '../helpers/consul-cli';
import { type SpawnedHub, spawnHub } from '../helpers/hub';
import { execFileTracked, killTree, spawnTracked } from '../helpers/procs';
import { letTimePass, until } from '../helpers/until';

let hub: SpawnedHub;
let env: NodeJS.ProcessEnv;
before(async () => {
  hub = await spawnHub(['--store', 'memory', '--http-port', '0', '--grpc-port', '0', '--node-name', 'kv-cli']);
  env = { ...process.env, CONSUL_HTTP_ADDR: hub.httpUrl };
});
after(() => hub?.stop('SIGTERM'));

const consul = async (...args: string[]) => (await execFileTracked(consulCli(), args, { env, timeout: 60_000 })).stdout;

test('consul kv put, get (-detailed, -recurse, -keys), delete, export and import', async () => {
  assert.match(await consul('kv', 'put', 'cli/a', 'alpha'), /Success! Data written to: cli\/a/);
  await consul('kv', 'put', '-flags=42', 'cli/b/c', 'gamma');
  assert.equal(await consul('kv', 'get', 'cli/a'), 'alpha\n');
  const detailed = await consul('kv', 'get', '-detailed', 'cli/b/c');
  assert.match(detailed, /Flags\s+42/);
  assert.match(await consul('kv', 'get', '-recurse', 'cli/'), /cli\/a:alpha\ncli\/b\/c:gamma/);
  assert.equal(await consul('kv', 'get', '-keys', '-separator=/', 'cli/'), 'cli/a\ncli/b/\n');
  const exported = JSON.parse(await consul('kv', 'export', 'cli/'));
  assert.deepEqual(
    exported.map((e: { key: string; flags: number }) => [e.key, e.flags]),
    [
      ['cli/a', 0],
      ['cli/b/c', 42],
    ],
  );
  assert.match(await consul('kv', 'delete', '-recurse', 'cli/'), /Success! Deleted keys with prefix: cli\//);
  await assert.rejects(consul('kv', 'get', 'cli/a'), /Error! No key exists at: cli\/a/);
  const moved = exported.map((e: { key: string }) => ({ ...e, key: e.key.replace('cli/', 'imported/') }));
  await consul('kv', 'import', JSON.stringify(moved));
  assert.equal(await consul('kv', 'get', 'imported/b/c'), 'gamma\n');
  // CAS from the CLI: -cas -modify-index.
  const index = /ModifyIndex\s+(\d+)/.exec(await consul('kv', 'get', '-detailed', 'imported/a'))![1]!;
  await assert.rejects(
    consul('kv', 'put', '-cas', `-modify-index=${Number(index) + 1}`, 'imported/a', 'x'),
    /CAS failed/,
  );
  await consul('kv', 'put', '-cas', `-modify-index=${index}`, 'imported/a', 'beta');
  assert.equal(await consul('kv', 'get', 'imported/a'), 'beta\n');
});

/** A tracked process's stdout and stderr so far. */
function output(child: ChildProcess): () => string {
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  return () => out;
}

test('consul watch -type=key and -type=keyprefix run their handler on each change', async () => {
  await consul('kv', 'put', 'watched/a', 'one');
  const spawn = (...args: string[]) => {
    const child = spawnTracked(consulCli(), ['watch', ...args, 'cat'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    return { child, out: output(child) };
  };
  const key = spawn('-type=key', '-key=watched/a');
  const prefix = spawn('-type=keyprefix', '-prefix=watched/');
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  await until(() => key.out().includes(b64('one')) && prefix.out().includes(b64('one')), 'both handlers ran once');
  await consul('kv', 'put', 'watched/a', 'two');
  await consul('kv', 'put', 'watched/b', 'three');
  await until(() => key.out().includes(b64('two')), 'the key handler ran on the change');
  await until(() => prefix.out().includes(b64('three')), 'the prefix handler saw the new key');
  assert.ok(!key.out().includes(b64('three')), 'the key watch ignores other keys');
  killTree(key.child, 'SIGTERM');
  killTree(prefix.child, 'SIGTERM');
});

/** `consul lock prefix <child>`, whose child prints `name` and then waits to be killed. */
function holder(name: string): { child: ChildProcess; out: () => string } {
  // The CLI runs its child through a shell: one argument, quoted for it.
  const script = `'${process.execPath}' -e 'console.log("${name} holds"); setInterval(() => {}, 1 << 30)'`;
  const child = spawnTracked(consulCli(), ['lock', '-name', name, 'locks/job', script], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return { child, out: output(child) };
}

async function lockHolder(): Promise<string | undefined> {
  const res = await fetch(`${hub.httpUrl}/v1/kv/locks/job/.lock`);
  if (res.status !== 200) return undefined;
  const [entry] = (await res.json()) as { Session?: string }[];
  return entry?.Session;
}

test('consul lock: one holder at a time; a killed holder frees the lock after TTL and lock delay', {
  timeout: 150_000,
}, async () => {
  const a = holder('A');
  await until(() => /^A holds$/m.test(a.out()), { what: 'A to acquire the lock', timeout: 30_000 });
  const sessionA = await lockHolder();
  const keys = await (await fetch(`${hub.httpUrl}/v1/kv/?recurse`)).text();
  assert.ok(sessionA, `the lock key is held by a session: ${keys}\n${a.out()}`);
  const b = holder('B');
  // B must not get the lock while A holds it: watch it for a while (the subject is time).
  await letTimePass(3_000, 'B would have acquired a free lock within this');
  assert.ok(!/^B holds$/m.test(b.out()), `B ran while A held the lock:\n${b.out()}`);
  assert.equal(await lockHolder(), sessionA);
  const killedAt = Date.now();
  killTree(a.child, 'SIGKILL'); // no release, no session destroy: only the TTL can free it
  await until(() => /^B holds$/m.test(b.out()), { what: 'B to acquire after A died', timeout: 120_000 });
  const waited = Date.now() - killedAt;
  // The session TTL is 15 s (timed twice over), then the 15 s lock delay.
  assert.ok(waited >= 15_000, `B acquired ${waited} ms after A died, inside the lock delay`);
  const sessionB = await lockHolder();
  assert.ok(sessionB && sessionB !== sessionA);
  const info = await (await fetch(`${hub.httpUrl}/v1/session/info/${sessionA}`)).json();
  assert.deepEqual(info, [], "A's session ended with its TTL");
  killTree(b.child, 'SIGTERM');
});
