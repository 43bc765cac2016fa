// `xdshub analyze` against a hub with ACLs on: the live state read with the
// caller's token (-token or CONSUL_HTTP_TOKEN, -http-addr or CONSUL_HTTP_ADDR),
// files alone, and files on top of the live state (--live). A token that may not
// read everything is refused rather than analysed on half the state.

import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Hub } from '../../src/hub';
import { aclHub, as, ROOT, tokenWith } from '../acl/helpers';
import { REPO_ROOT } from '../helpers/hub';
import { execFileTracked } from '../helpers/procs';
import { tmpDir } from '../helpers/tmp';

let hub: Hub;
let dir: { path: string; cleanup(): Promise<void> };
const MAIN = join(REPO_ROOT, 'src', 'cli', 'main.ts');

async function analyze(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const clean = { ...process.env, CONSUL_HTTP_ADDR: '', CONSUL_HTTP_TOKEN: '', ...env };
  try {
    const { stdout, stderr } = await execFileTracked(process.execPath, ['--import', 'tsx', MAIN, 'analyze', ...args], {
      cwd: REPO_ROOT,
      env: clean,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

before(async () => {
  hub = await aclHub();
  dir = await tmpDir('xdshub-analyze');
  for (const [node, service] of [
    ['n1', 'web'],
    ['n1', 'api'],
  ] as const) {
    assert.equal(
      (
        await as(hub, ROOT, 'PUT', '/v1/catalog/register', {
          Node: node,
          Address: '10.0.0.1',
          Service: { Service: service },
        })
      ).status,
      200,
    );
  }
  for (const e of [
    { Kind: 'service-defaults', Name: 'web', Protocol: 'http' },
    {
      Kind: 'service-router',
      Name: 'web',
      Routes: [
        { Match: { HTTP: { PathPrefix: '/api' } }, Destination: { Service: 'api' } },
        { Match: { HTTP: { PathPrefix: '/api/v2' } }, Destination: { Service: 'api' } },
      ],
    },
    { Kind: 'service-intentions', Name: 'api', Sources: [{ Name: 'web', Action: 'allow' }] },
  ])
    assert.equal((await as(hub, ROOT, 'PUT', '/v1/config', e)).status, 200);
});

after(async () => {
  await hub?.close();
  await dir?.cleanup();
});

test('the live state, read with -token: the shadowed route is found; a warning alone exits 0', async () => {
  const r = await analyze(['-http-addr', hub.httpUrl, '-token', ROOT]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^Warning \[XA0007\] service-router\/web Routes\[1\]\.Match: route 1 can never match/m);
  assert.match(r.stdout, /0 error\(s\), 1 warning\(s\)/);
  const json = await analyze(['-o', 'json'], {
    CONSUL_HTTP_ADDR: hub.httpUrl.replace(/^http:\/\//, ''),
    CONSUL_HTTP_TOKEN: ROOT,
  });
  assert.deepEqual(
    JSON.parse(json.stdout).findings.map((f: { code: string }) => f.code),
    ['XA0007'],
  );
});

test('a token that may not read everything is refused (exit 1) rather than analysed on half the state; no token is said', async () => {
  const { secret } = await tokenWith(hub, 'service "web" { policy = "read" }');
  const partial = await analyze(['-http-addr', hub.httpUrl, '-token', secret]);
  assert.equal(partial.code, 1);
  assert.match(
    partial.stderr,
    /GET \/v1\/catalog\/services: the token may not read everything \(X-Consul-Results-Filtered-By-ACLs\)/,
  );
  // Anonymous answers are filtered without the header (as Consul does): analyze says it had no token.
  const anonymous = await analyze(['-http-addr', hub.httpUrl]);
  assert.match(anonymous.stderr, /no token .*anonymous token/);
  assert.match(anonymous.stdout, /no issues found in 0 config entries, 0 live services/);
});

test('files alone, and files on top of the live state: errors exit 1', async () => {
  const change = join(dir.path, 'change.hcl');
  writeFileSync(
    change,
    'Kind = "service-splitter"\nName = "web"\nSplits = [{ Weight = 60, Service = "web" }, { Weight = 30, Service = "wbe" }]\n',
  );
  const alone = await analyze([change]);
  assert.equal(alone.code, 1);
  assert.match(alone.stdout, /Error \[XA0005\] service-splitter\/web Splits: weights add up to 90/);
  assert.match(alone.stdout, /Error \[XA0003\] service-splitter\/web Splits\[1\]\.Service: service "wbe"/);
  assert.match(alone.stdout, /Error \[XA0009\]/, 'alone, the file has no service-defaults for web');
  const onLive = await analyze(['-http-addr', hub.httpUrl, '-token', ROOT, '--live', change]);
  assert.equal(onLive.code, 1);
  assert.doesNotMatch(onLive.stdout, /XA0009/, 'the live service-defaults make web http');
  assert.match(onLive.stdout, /XA0007/);
  const clean = join(dir.path, 'clean.json');
  writeFileSync(
    clean,
    JSON.stringify([
      { Node: 'n9', Address: '10.0.0.9', Service: { Service: 'db' } },
      { Kind: 'service-intentions', Name: 'db', Sources: [{ Name: 'api', Action: 'allow' }] },
    ]),
  );
  const ok = await analyze(['-http-addr', hub.httpUrl, '-token', ROOT, '--live', clean]);
  assert.equal(ok.code, 0);
  assert.doesNotMatch(ok.stdout, /XA0006/);
});
