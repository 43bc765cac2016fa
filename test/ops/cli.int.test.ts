// The operator CLI against a hub with ACLs on (default deny), as an operator runs
// it: the compiled `xdshub` (dist/, `npm run build`) spawned per command, with
// scripted Delta ADS clients connected over real gRPC carrying their own tokens.
// A token with operator:read reads everything; none, or one without the right,
// gets the hub's 403 and exit 1. Also: a rollout whose selector matches no
// connected node is refused, a held rollout shows its pinned nodes, and a
// rollback clears the canary's NACK.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { serviceSpiffeId } from '../../src/connect/spiffe';
import type { Hub } from '../../src/hub';
import { TypeUrl } from '../../src/xds/transport/type-urls';
import { AdsClient } from '../acl/ads-client';
import { aclHub, as, ROOT, tokenWith } from '../acl/helpers';
import { BUILT_MAIN, REPO_ROOT } from '../helpers/hub';
import { execFileTracked } from '../helpers/procs';
import { tmpDir } from '../helpers/tmp';
import { type AutoClient, autoClient, until } from './helpers';

const READ_ALL = 'service_prefix "" { policy = "read" }\nnode_prefix "" { policy = "read" }';
const WEB_SIDECAR =
  'service "web" { policy = "write" }\nservice_prefix "" { policy = "read" }\nnode_prefix "" { policy = "read" }';

let hub: Hub;
let opRead: string;
let opWrite: string;
let noOperator: string;
let canary: AutoClient;
let edges: AutoClient[];
let sidecar: AdsClient;
let dir: Awaited<ReturnType<typeof tmpDir>>;

interface Run {
  status: number;
  stdout: string;
  stderr: string;
}

/** The compiled CLI, asynchronously (the hub answering it runs in this process). */
function xdshub(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const childEnv = { ...process.env, CONSUL_HTTP_ADDR: '', CONSUL_HTTP_TOKEN: '', ...env };
  return execFileTracked(process.execPath, [BUILT_MAIN, ...args], { cwd: REPO_ROOT, env: childEnv }).then(
    ({ stdout, stderr }) => ({ status: 0, stdout, stderr }),
    (err: { code?: number; stdout: string; stderr: string }) => ({
      status: Number(err.code ?? 1),
      stdout: err.stdout,
      stderr: err.stderr,
    }),
  );
}

/** `xdshub ARGS` against the test hub with `token` (as -token), expecting exit 0. */
async function ok(token: string, ...args: string[]): Promise<string> {
  const r = await xdshub([...args, '-http-addr', hub.httpUrl, '-token', token]);
  assert.equal(r.status, 0, `xdshub ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** Every command refuses without a token and with one lacking the right: the hub's 403, exit 1. */
async function refused(args: string[], right: RegExp): Promise<void> {
  const none = await xdshub([...args, '--http-addr', hub.httpUrl]);
  assert.equal(none.status, 1, `no token: ${none.stdout}`);
  assert.match(none.stderr, /: 403 .*no token given: pass -token or set CONSUL_HTTP_TOKEN/);
  const lacking = await xdshub([...args, '--http-addr', hub.httpUrl, '--token', noOperator]);
  assert.equal(lacking.status, 1);
  assert.match(lacking.stderr, /: 403 /);
  assert.match(lacking.stderr, right);
  assert.equal(lacking.stdout, '');
}

const cdsVersion = (c: AutoClient) => c.held.get(TypeUrl.Cluster)?.get('web');

before(async () => {
  hub = await aclHub({ nodeName: 'ops-cli', xdsDebounceMs: 5, xdsMaxDelayMs: 50 });
  dir = await tmpDir('ops-cli');
  const reg = await as(hub, ROOT, 'PUT', '/v1/agent/service/register', {
    Name: 'web',
    ID: 'web1',
    Port: 8080,
    Connect: { SidecarService: { Port: 9080 } },
  });
  assert.equal(reg.status, 200, reg.text);
  opRead = (await tokenWith(hub, 'operator = "read"')).secret;
  opWrite = (await tokenWith(hub, 'operator = "write"\nservice_prefix "" { policy = "write" }')).secret;
  noOperator = (await tokenWith(hub, READ_ALL)).secret;
  const xdsToken = (await tokenWith(hub, READ_ALL)).secret;
  // A canary that refuses web's cluster once it carries HTTP/2 options; two edges that accept everything.
  const http2 = (res: any[]) =>
    res.some(
      (r) =>
        r.name === 'web' && r.typedExtensionProtocolOptions && Object.keys(r.typedExtensionProtocolOptions).length > 0,
    );
  canary = autoClient(hub.grpcPort, 'canary-1', {
    token: xdsToken,
    eds: ['web'],
    nack: (t, res) => (t === TypeUrl.Cluster && http2(res) ? 'web: http2 options refused by this proxy' : undefined),
  });
  edges = [
    autoClient(hub.grpcPort, 'edge-1', { token: xdsToken }),
    autoClient(hub.grpcPort, 'edge-2', { token: xdsToken }),
  ];
  await until(() => [canary, ...edges].every((c) => cdsVersion(c)), 'every node holds web');
  // The sidecar of web: its leaf certificate over SDS (the CLI must never print its key).
  const ca = await until(
    () => (hub.catalog.connectCa().leaves.has('web') ? hub.catalog.connectCa() : undefined),
    'a leaf for web',
  );
  sidecar = new AdsClient(hub.grpcPort, 'delta', 'web1-sidecar-proxy', (await tokenWith(hub, WEB_SIDECAR)).secret);
  sidecar.subscribe(TypeUrl.Secret, [serviceSpiffeId(ca.trustDomain, hub.config.datacenter, 'web')]);
  sidecar.ack(await sidecar.nextOf(TypeUrl.Secret));
});

after(async () => {
  sidecar?.close();
  for (const c of [canary, ...(edges ?? [])]) c?.close();
  await hub?.close();
  await dir?.cleanup();
});

test('proxy-status: each connected node, per type synced, index and age of last ACK; 403 without operator:read', async () => {
  const rows = await until(async () => {
    const r = JSON.parse(await ok(opRead, 'proxy-status', '-o', 'json'));
    return r.length === 4 && r.every((x: any) => x.types.every((t: any) => t.state === 'synced' && t.lastAckAt))
      ? r
      : undefined;
  }, 'four nodes, all synced');
  assert.deepEqual(
    rows.map((r: any) => r.node.id),
    ['canary-1', 'edge-1', 'edge-2', 'web1-sidecar-proxy'],
  );
  assert.deepEqual(
    rows[0].types.map((t: any) => t.type),
    ['CDS', 'EDS'],
  );
  assert.deepEqual(
    rows[3].types.map((t: any) => t.type),
    ['SDS'],
  );
  const text = await ok(opRead, 'proxy-status');
  assert.match(text, /^NODE +CLUSTER +STREAM +CDS +EDS +LDS +RDS +SDS +HELD BY\n/);
  assert.match(text, /\ncanary-1 +test +ads\/delta +SYNCED \(i\d+ \d+s\) +SYNCED \(i\d+ \d+s\) +- +- +- +-\n/);
  const yaml = parseYaml(await ok(opRead, 'proxy-status', 'edge-1', '-o', 'yaml'));
  assert.deepEqual(
    yaml.map((r: any) => r.node.id),
    ['edge-1'],
  );
  // The environment variables stand for the flags, as for the consul CLI.
  const viaEnv = await xdshub(['proxy-status'], {
    CONSUL_HTTP_ADDR: hub.httpUrl.replace(/^http:\/\//, ''),
    CONSUL_HTTP_TOKEN: opRead,
  });
  assert.equal(viaEnv.status, 0, viaEnv.stderr);
  assert.match(viaEnv.stdout, /\nedge-2 /);
  await refused(['proxy-status'], /operator/);
  const unknown = await xdshub(['proxy-status', 'nobody', '-http-addr', hub.httpUrl, '-token', opRead]);
  assert.equal(unknown.status, 1);
  assert.match(unknown.stderr, /nobody: not connected/);
  assert.equal((await xdshub(['proxy-status', '-o', 'xml'])).status, 2);
});

test("proxy-config: a node's resources now and at an index, three formats; secrets by name and version only", async () => {
  const table = await ok(opRead, 'proxy-config', 'canary-1', 'clusters');
  assert.match(table, /^clusters of canary-1\nNAME +VERSION +SUMMARY\n/);
  assert.match(table, /\nweb +\S+ +EDS/);
  const now = JSON.parse(await ok(opRead, 'proxy-config', 'canary-1', 'endpoints', '-o', 'json'));
  assert.equal(now.connected, true);
  assert.deepEqual(Object.keys(now.resources), ['web']);
  const index = String(hub.catalog.lastIndex());
  const at = parseYaml(await ok(opRead, 'proxy-config', 'canary-1', 'clusters', '--at', index, '-o', 'yaml'));
  assert.equal(at.index, index);
  const clusters = JSON.parse(await ok(opRead, 'proxy-config', 'canary-1', 'clusters', '-o', 'json'));
  assert.equal(at.resources.web.version, clusters.resources.web.version, 'nothing changed since: the same version');
  for (const format of ['table', 'json', 'yaml']) {
    const out = await ok(opRead, 'proxy-config', 'web1-sidecar-proxy', 'secrets', '-o', format);
    assert.doesNotMatch(out, /PRIVATE KEY|BEGIN CERTIFICATE|inlineBytes|inlineString|privateKey/i, format);
    assert.match(out, /spiffe:\/\//, `${format} names the leaf`);
  }
  const secrets = JSON.parse(await ok(opRead, 'proxy-config', 'web1-sidecar-proxy', 'secrets', '-o', 'json'));
  for (const s of Object.values<any>(secrets.resources))
    assert.deepEqual(Object.keys(s.resource).sort(), ['@type', 'name']);
  const secretsAt = await xdshub([
    'proxy-config',
    'web1-sidecar-proxy',
    'secrets',
    '--at',
    index,
    '-http-addr',
    hub.httpUrl,
    '-token',
    opRead,
  ]);
  assert.equal(secretsAt.status, 2);
  assert.match(secretsAt.stderr, /secrets are not rebuilt at an index/);
  const gone = await xdshub(['proxy-config', 'nobody', 'clusters', '-http-addr', hub.httpUrl, '-token', opRead]);
  assert.equal(gone.status, 1);
  assert.match(gone.stderr, /xdshub proxy-config: 404 .*nobody/);
  assert.equal((await xdshub(['proxy-config', 'canary-1', 'pods'])).status, 2);
  await refused(['proxy-config', 'canary-1', 'clusters'], /operator/);
});

test("history: a node's pushes and its ACKs", async () => {
  const text = await ok(opRead, 'history', 'canary-1');
  assert.match(
    text,
    /^history of canary-1 \(cluster test\): \d+ record\(s\)\nSEQ +AT +HUB +INDEX +TYPE +SENT +ANSWER\n/,
  );
  assert.match(text, /\n1 +\S+ +ops-cli +\d+ +CDS +\d+ resource\(s\) +ACK\n/);
  const json = JSON.parse(await ok(opRead, 'history', 'canary-1', '--limit', '1', '-o', 'json'));
  assert.equal(json.records.length, 1);
  const bad = await xdshub(['history', 'canary-1', '--limit', 'many', '-http-addr', hub.httpUrl, '-token', opRead]);
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /400 limit: /);
  await refused(['history', 'canary-1'], /operator/);
});

test("dry-run (and its alias diff) answers as the caller: the write's own rights apply under ACLs", async () => {
  const file = join(dir.path, 'change.json');
  writeFileSync(
    file,
    JSON.stringify({
      Method: 'PUT',
      Path: '/v1/config',
      Body: { Kind: 'service-defaults', Name: 'web', Protocol: 'http2' },
    }),
  );
  const index = hub.catalog.lastIndex();
  const text = await ok(opWrite, 'dry-run', file);
  assert.match(text, /would apply; 3 node\(s\) affected, 1 unaffected\n/);
  assert.match(text, /\n3 node\(s\): canary-1, edge-1, edge-2\n {2}~ clusters web\n/);
  const json = JSON.parse(await ok(opWrite, 'diff', '--json', file));
  assert.deepEqual(json.unaffected, ['web1-sidecar-proxy']);
  // The older spelling of the address flag still works.
  const old = await xdshub(['diff', '--hub', hub.httpUrl, '--token', opWrite, file]);
  assert.equal(old.status, 0, old.stderr);
  assert.equal(hub.catalog.lastIndex(), index, 'nothing written');
  // operator:read may ask for a dry run, but the change itself needs the write's right: refused as the write would be.
  const readOnly = await xdshub(['dry-run', file, '-http-addr', hub.httpUrl, '-token', opRead]);
  assert.equal(readOnly.status, 1);
  assert.match(readOnly.stderr, /xdshub dry-run: 403 .*(service|mesh|operator)/i);
  await refused(['dry-run', file], /operator/);
  const missing = await xdshub(['dry-run', join(dir.path, 'none.json'), '-http-addr', hub.httpUrl, '-token', opRead]);
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /ENOENT/);
});

test('rollouts: a selector matching no node is refused; a hold shows its pinned nodes; rollback clears the NACK', async () => {
  const change = { Kind: 'service-defaults', Name: 'web', Protocol: 'http2' };
  const index = hub.catalog.lastIndex();
  const none = await as(hub, ROOT, 'PUT', '/v1/config', change, { 'x-xdshub-rollout': 'canary=1,select=id:nobody-*' });
  assert.equal(none.status, 409, none.text);
  assert.match(none.text, /no connected node matches select=id:nobody-\*/);
  assert.equal(hub.catalog.lastIndex(), index, 'nothing written');
  assert.equal((await as(hub, ROOT, 'GET', '/v1/config/service-defaults/web')).status, 404);

  const original = cdsVersion(canary)!;
  const res = await as(hub, ROOT, 'PUT', '/v1/config', change, {
    'x-xdshub-rollout': 'canary=1,window=10m,select=id:canary-*',
  });
  assert.equal(res.status, 200, res.text);
  const id = String(res.headers['x-xdshub-rollout-id']);
  const held = await until(async () => {
    const r = JSON.parse(await ok(opRead, 'rollout', 'show', id, '-o', 'json'));
    return r.state === 'held' ? r : undefined;
  }, 'the canary NACK holds the rollout');
  assert.deepEqual(held.held, ['edge-1', 'edge-2', 'web1-sidecar-proxy']);
  assert.equal(held.pinnedIndex, String(index));
  assert.match(
    await ok(opRead, 'rollout', 'list'),
    new RegExp(
      `\\n${id} +held +config-set service-defaults/web +\\d+ +canary-1 +@${index}: 3 node\\(s\\) +` +
        'NACK from canary-1 \\(CDS\\)',
    ),
  );
  assert.match(
    await ok(opRead, 'rollout', 'show', id),
    /\n {2}pinned at: index \d+; held now: edge-1, edge-2, web1-sidecar-proxy\n/,
  );
  // The dashboard's JSON says the same.
  assert.deepEqual((await as(hub, opRead, 'GET', '/v1/xds/rollouts')).json[0].held, [
    'edge-1',
    'edge-2',
    'web1-sidecar-proxy',
  ]);
  const status = JSON.parse(await ok(opRead, 'proxy-status', '-o', 'json'));
  const of = (node: string) => status.find((r: any) => r.node.id === node);
  assert.deepEqual(of('edge-1').pinned, { rollout: id, index: String(index) });
  assert.equal(of('canary-1').pinned, null);
  const cds = of('canary-1').types.find((t: any) => t.type === 'CDS');
  assert.equal(cds.state, 'nacked');
  assert.match(cds.lastNack.message, /http2 options refused/);
  const table = await ok(opRead, 'proxy-status');
  assert.match(table, /\ncanary-1 .* NACKED .*\n/);
  assert.match(table, new RegExp(`\\nedge-1 .* ${id} @${index}\\n`));
  assert.match(table, /\nNACKs:\n {2}canary-1 CDS: web: http2 options refused by this proxy\n/);

  // Ending it needs operator:write.
  const denied = await xdshub(['rollout', 'rollback', id, '-http-addr', hub.httpUrl, '-token', opRead]);
  assert.equal(denied.status, 1);
  assert.match(denied.stderr, /xdshub rollout: 403 .*operator/);
  const rb = await ok(opWrite, 'rollout', 'rollback', id);
  assert.match(rb, new RegExp(`^rollout ${id}: rolled-back`));
  assert.equal(cdsVersion(canary), original, 'the canary kept its good version');
  // The rollback restored the version the canary holds: its NACK no longer counts.
  await until(async () => {
    const r = JSON.parse(await ok(opRead, 'proxy-status', 'canary-1', '-o', 'json'));
    return r[0].types.every((t: any) => t.state === 'synced' && t.lastNack === null) && r[0].pinned === null;
  }, 'canary-1 synced again, without its NACK');
  assert.doesNotMatch(await ok(opRead, 'proxy-status'), /NACK/);
  const again = await xdshub(['rollout', 'rollback', id, '-http-addr', hub.httpUrl, '-token', opWrite]);
  assert.equal(again.status, 1);
  assert.match(again.stderr, /409 rollout .* is rolled-back/);

  // proceed: a change the canary accepts (a new service), released by the operator before its window ends.
  const hasApi = (c: AutoClient) => c.held.get(TypeUrl.Cluster)?.has('api') === true;
  const next = await as(
    hub,
    ROOT,
    'PUT',
    '/v1/catalog/register',
    { Node: 'n2', Address: '127.0.0.1', Service: { Service: 'api', ID: 'api-1', Port: 7000 } },
    { 'x-xdshub-rollout': 'canary=1,window=10m,select=id:canary-*' },
  );
  assert.equal(next.status, 200, next.text);
  const id2 = String(next.headers['x-xdshub-rollout-id']);
  await until(() => hasApi(canary), 'the canary takes the change');
  assert.ok(!edges.some(hasApi), 'the edges are held');
  assert.match(
    await ok(opRead, 'rollout', 'list'),
    new RegExp(`\\n${id2} +canary +register api-1 on n2 +\\d+ +canary-1 +@\\d+: 3 node\\(s\\)\\n`),
  );
  assert.match(
    await ok(opWrite, 'rollout', 'proceed', id2),
    new RegExp(`^rollout ${id2}: completed\\n[^]*held now: \\(none\\)`),
  );
  await until(() => edges.every(hasApi), 'everyone gets the change');
  assert.match(await ok(opRead, 'rollout', 'list'), new RegExp(`\\n${id2} +completed .* -\\n`));
  await refused(['rollout', 'list'], /operator/);
  assert.equal((await xdshub(['rollout', 'show'])).status, 2);
  assert.equal((await xdshub(['rollout', 'pause', 'x'])).status, 2);
});
