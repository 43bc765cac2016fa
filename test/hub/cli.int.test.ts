// The xdshub binary: usage errors exit 2 with a message; serve starts, prints
// one startup line, and exits 0 on SIGTERM and SIGINT; the compiled CLI takes
// bare boolean flags and prints every flag in `serve --help`.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import pkg from '../../package.json';
import { optionsHelp } from '../../src/config-options';
import { BUILT_MAIN, REPO_ROOT, spawnHub } from '../helpers/hub';

function xdshub(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'src/cli/main.ts'), ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
}

test('a bad flag exits 2 naming it', () => {
  const res = xdshub(['serve', '--no-such-flag']);
  assert.equal(res.status, 2, res.stderr);
  assert.match(res.stderr, /no-such-flag/);
});

test('a bad value exits 2 naming the flag (from a flag or from XDSHUB_*)', () => {
  const flag = xdshub(['serve', '--http-port', 'eighty']);
  assert.equal(flag.status, 2);
  assert.match(flag.stderr, /http-port: not a port/);
  const env = xdshub(['serve'], { XDSHUB_STORE: 'postgres' });
  assert.equal(env.status, 2);
  assert.match(env.stderr, /store: expected sqlite, memory, redis:\/\/host:port or redis-sentinel:\/\//);
});

test('--upstream (fan-out tier) refuses what a hub without a log cannot honour, naming the flag, with exit 2', () => {
  const store = xdshub([
    'serve',
    '--store',
    'memory',
    '--upstream',
    '127.0.0.1:8502',
    '--upstream-http',
    'http://127.0.0.1:8500',
  ]);
  assert.equal(store.status, 2);
  assert.match(store.stderr, /store: a fan-out hub \(--upstream\) keeps no log/);
  const noHttp = xdshub(['serve', '--upstream', '127.0.0.1:8502']);
  assert.equal(noHttp.status, 2);
  assert.match(noHttp.stderr, /upstream-http: a fan-out hub \(--upstream\) needs the upstream's HTTP API/);
  const acl = xdshub([
    'serve',
    '--upstream',
    '127.0.0.1:8502',
    '--upstream-http',
    'http://127.0.0.1:8500',
    '--acl-enabled',
    'true',
  ]);
  assert.equal(acl.status, 2);
  assert.match(acl.stderr, /acl-enabled: a fan-out hub/);
});

test('an unknown command exits 2 with usage; --help and --version exit 0', () => {
  const unknown = xdshub(['frobnicate']);
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /unknown command "frobnicate"/);
  const help = xdshub(['--help']);
  assert.equal(help.status, 0);
  assert.match(help.stdout, /usage: xdshub/);
  const version = xdshub(['--version']);
  assert.equal(version.status, 0);
  assert.equal(version.stdout.trim(), pkg.version);
});

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  test(`serve prints its URLs and shuts down cleanly on ${signal}`, async () => {
    const hub = await spawnHub([
      '--store',
      'memory',
      '--http-port',
      '0',
      '--grpc-port',
      '0',
      '--node-name',
      'cli-test',
    ]);
    assert.match(hub.httpUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.match(hub.grpcAddress, /^127\.0\.0\.1:\d+$/);
    const res = await fetch(`${hub.httpUrl}/v1/agent/self`);
    assert.equal(((await res.json()) as { Config: { NodeName: string } }).Config.NodeName, 'cli-test');
    assert.equal(await hub.stop(signal), 0, hub.stderr());
  });
}

test('serve fails with exit 1 and a message when its HTTP port is taken', async () => {
  const first = await spawnHub(['--store', 'memory', '--http-port', '0', '--grpc-port', '0']);
  try {
    const port = new URL(first.httpUrl).port;
    const second = xdshub(['serve', '--store', 'memory', '--http-port', port, '--grpc-port', '0'], {
      XDSHUB_LOG_LEVEL: 'silent',
    });
    assert.equal(second.status, 1, second.stderr);
    assert.match(second.stderr, /EADDRINUSE/);
  } finally {
    assert.equal(await first.stop('SIGTERM'), 0);
  }
});

test('the compiled CLI: serve --help prints the flag table; bare booleans start the hub and apply', async () => {
  const help = spawnSync(process.execPath, [BUILT_MAIN, 'serve', '--help'], { cwd: REPO_ROOT, encoding: 'utf8' });
  assert.equal(help.status, 0, help.stderr);
  assert.equal(help.stdout, optionsHelp());
  assert.match(help.stdout, /--acl-enabled\[=true\|false\]\n.*\(default: false; env XDSHUB_ACL_ENABLED\)/);

  const root = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';
  const bare = [
    '--acl-enabled',
    '--acl-default-policy',
    'deny',
    '--acl-initial-management-token',
    root,
    '--memory-trim',
    'false',
  ];
  const hub = await spawnHub(
    ['--store', 'memory', '--http-port', '0', '--grpc-port', '0', ...bare],
    {},
    { built: true },
  );
  try {
    const register = (headers: Record<string, string>) =>
      fetch(`${hub.httpUrl}/v1/catalog/register`, {
        method: 'PUT',
        headers,
        body: JSON.stringify({ Node: 'n1', Address: '10.0.0.1' }),
      });
    const anonymous = await register({});
    assert.equal(anonymous.headers.get('x-consul-default-acl-policy'), 'deny');
    assert.equal(
      anonymous.status,
      403,
      `ACLs on, default deny: the anonymous token writes nothing (${await anonymous.text()})`,
    );
    const managed = await register({ 'x-consul-token': root });
    assert.equal(managed.status, 200, await managed.text());
  } finally {
    assert.equal(await hub.stop('SIGTERM'), 0, hub.stderr());
  }
  const off = await spawnHub(
    ['--store', 'memory', '--http-port', '0', '--grpc-port', '0', '--acl-enabled=false'],
    {},
    { built: true },
  );
  try {
    const res = await fetch(`${off.httpUrl}/v1/catalog/register`, {
      method: 'PUT',
      body: JSON.stringify({ Node: 'n1', Address: '10.0.0.1' }),
    });
    assert.equal(res.status, 200, await res.text());
    assert.equal(res.headers.get('x-consul-default-acl-policy'), null, '--acl-enabled=false: no ACLs');
  } finally {
    assert.equal(await off.stop('SIGTERM'), 0, off.stderr());
  }
});
