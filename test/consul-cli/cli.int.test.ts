// The real `consul` CLI (v1.16.1) against a hub, as an operator would run it
// on a fresh install: the hub's node is listed before anything is registered,
// `members` and `info` print the hub, `services register` takes a file with
// Consul's sidecar shorthand, an endpoint the hub does not serve is an error
// that names it, and under ACLs a token with only `service:write` registers
// the first service.

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Hub } from '../../src/hub';
import { type ConsulTarget, runConsul } from '../helpers/consul-cli';
import { startHub } from '../helpers/hub';

let hub: Hub;
let target: ConsulTarget;
let dir: string;

before(async () => {
  hub = await startHub({ nodeName: 'cli-hub', datacenter: 'dc1' });
  target = { httpAddr: `127.0.0.1:${hub.httpPort}` };
  dir = await mkdtemp(join(tmpdir(), 'xdshub-consul-cli-'));
});
after(async () => {
  await hub?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** `consul`'s column output as rows of cells. */
function rows(out: string): string[][] {
  return out
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/));
}

test("consul catalog nodes on a fresh hub lists the hub's own node", async () => {
  const { stdout } = await runConsul(['catalog', 'nodes'], target);
  const [head, ...nodes] = rows(stdout);
  assert.deepEqual(head, ['Node', 'ID', 'Address', 'DC']);
  assert.equal(nodes.length, 1, stdout);
  assert.deepEqual([nodes[0]![0], nodes[0]![2], nodes[0]![3]], ['cli-hub', '127.0.0.1', 'dc1']);
  assert.match(nodes[0]![1]!, /^[0-9a-f]{8}$/);
});

test('consul members and consul info print the hub', async () => {
  const members = rows((await runConsul(['members'], target)).stdout);
  assert.deepEqual(members[0], [
    'Node',
    'Address',
    'Status',
    'Type',
    'Build',
    'Protocol',
    'DC',
    'Partition',
    'Segment',
  ]);
  assert.deepEqual(
    members.slice(1).map((r) => [r[0], r[2], r[3], r[6]]),
    [['cli-hub', 'alive', 'server', 'dc1']],
  );
  const { stdout: info } = await runConsul(['info'], target);
  for (const section of ['agent:', 'build:', 'consul:', 'runtime:'])
    assert.match(info, new RegExp(`^${section}$`, 'm'), info);
  assert.match(info, /^\s+leader = true$/m);
  assert.match(info, /^\s+server = true$/m);
  assert.match(info, /^\s+acl = disabled$/m);
  assert.match(info, new RegExp(`^\\s+leader_addr = 127\\.0\\.0\\.1:${hub.grpcPort}$`, 'm'));
});

test("services register with connect { sidecar_service {} }: the sidecar, with Consul's default checks", async () => {
  const file = join(dir, 'web.hcl');
  await writeFile(
    file,
    'service {\n  name = "web"\n  id = "web1"\n  port = 9090\n  connect { sidecar_service {} }\n}\n',
  );
  const { stdout } = await runConsul(['services', 'register', file], target);
  assert.match(stdout, /Registered service: web/);
  const services = rows((await runConsul(['catalog', 'services'], target)).stdout).map((r) => r[0]);
  assert.deepEqual(services, ['web', 'web-sidecar-proxy']);
  const checks = (await hub.http.inject({ method: 'GET', url: '/v1/agent/checks' })).json() as Record<
    string,
    { Name: string; ServiceID: string }
  >;
  assert.deepEqual(
    Object.values(checks)
      .filter((c) => c.ServiceID === 'web1-sidecar-proxy')
      .map((c) => c.Name)
      .sort(),
    ['Connect Sidecar Aliasing web1', 'Connect Sidecar Listening'],
  );
  const proxy = (await hub.http.inject({ method: 'GET', url: '/v1/agent/service/web1-sidecar-proxy' })).json();
  assert.equal(proxy.Proxy.DestinationServiceID, 'web1');
  assert.equal(proxy.Proxy.LocalServicePort, 9090);
  await runConsul(['services', 'deregister', '-id', 'web1'], target);
  assert.equal(
    (await runConsul(['catalog', 'services'], target)).stdout.trim(),
    '',
    'the sidecar went with its service',
  );
});

test('a sub-command whose endpoint the hub does not serve fails naming it (501), never as if empty', async () => {
  const err = await runConsul(['operator', 'raft', 'list-peers'], target).then(
    () => assert.fail('consul operator raft list-peers succeeded'),
    (e: Error & { stderr: string; code: number }) => e,
  );
  assert.equal(err.code, 1);
  assert.match(err.stderr, /501/);
  assert.match(err.stderr, /GET \/v1\/operator\/raft\/configuration: this endpoint is not served by this hub/);
});

test("under ACLs the first agent registration needs only service:write (the hub's node is there already)", async () => {
  const root = '11111111-2222-3333-4444-555555555555';
  const secured = await startHub({
    nodeName: 'acl-hub',
    aclEnabled: true,
    aclDefaultPolicy: 'deny',
    aclInitialManagementToken: root,
  });
  try {
    const admin = { httpAddr: `127.0.0.1:${secured.httpPort}`, token: root };
    await runConsul(
      ['acl', 'policy', 'create', '-name', 'api-write', '-rules', 'service "api" { policy = "write" }'],
      admin,
    );
    const secret = 'aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee';
    await runConsul(['acl', 'token', 'create', '-policy-name', 'api-write', '-secret', secret], admin);
    const file = join(dir, 'api.hcl');
    await writeFile(file, 'service {\n  name = "api"\n  id = "api1"\n  port = 9191\n}\n');
    const { stdout } = await runConsul(['services', 'register', file], { httpAddr: admin.httpAddr, token: secret });
    assert.match(stdout, /Registered service: api/);
    // The same token may not touch another service.
    const other = join(dir, 'db.hcl');
    await writeFile(other, 'service {\n  name = "db"\n  port = 5432\n}\n');
    const refused = await runConsul(['services', 'register', other], { httpAddr: admin.httpAddr, token: secret }).then(
      () => assert.fail('registering db with an api-only token succeeded'),
      (e: Error & { stderr: string }) => e,
    );
    assert.match(refused.stderr, /403/);
  } finally {
    await secured.close();
  }
});
