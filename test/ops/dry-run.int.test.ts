// Dry runs: ?dry-run=true on the write routes predicts, per node, what would be
// added, changed and removed, and writes nothing. Property: for random changes,
// the prediction equals what a real client then receives when the same change
// is applied.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { TypeUrl } from '../../src/xds/transport/type-urls';
import { REPO_ROOT, call } from '../helpers/hub';
import { tmpDir } from '../helpers/tmp';
import { autoClient, register, startOpsHub, until, type AutoClient } from './helpers';

const SERVICES = ['alpha', 'beta', 'gamma'];
const REST: Record<string, string> = { clusters: TypeUrl.Cluster, endpoints: TypeUrl.ClusterLoadAssignment };

type Change = { method: string; url: string; body?: unknown };
const change: fc.Arbitrary<Change> = fc.oneof(
  fc.record({ s: fc.constantFrom(...SERVICES), port: fc.integer({ min: 1000, max: 1003 }), node: fc.constantFrom('n1', 'n2'), tag: fc.constantFrom('v1', 'v2') }).map(({ s, port, node, tag }) => ({
    method: 'PUT',
    url: '/v1/catalog/register',
    body: { Node: node, Address: '127.0.0.1', Service: { Service: s, ID: `${s}-${port}`, Port: port, Tags: [tag] } },
  })),
  fc.record({ s: fc.constantFrom(...SERVICES), port: fc.integer({ min: 1000, max: 1003 }), node: fc.constantFrom('n1', 'n2') }).map(({ s, port, node }) => ({
    method: 'PUT',
    url: '/v1/catalog/deregister',
    body: { Node: node, ServiceID: `${s}-${port}` },
  })),
  fc.record({ s: fc.constantFrom(...SERVICES), p: fc.constantFrom('http', 'http2', 'grpc', 'tcp') }).map(({ s, p }) => ({ method: 'PUT', url: '/v1/config', body: { Kind: 'service-defaults', Name: s, Protocol: p } })),
  fc.constantFrom(...SERVICES).map((s) => ({ method: 'DELETE', url: `/v1/config/service-defaults/${s}` })),
  fc.record({ s: fc.constantFrom(...SERVICES), port: fc.integer({ min: 1000, max: 1003 }) }).map(({ s, port }) => ({
    method: 'PUT',
    url: '/v1/txn',
    body: [{ Service: { Verb: 'set', Node: 'n1', Service: { Service: s, ID: `${s}-t${port}`, Port: port } } }],
  })),
);

const withDry = (url: string) => `${url}${url.includes('?') ? '&' : '?'}dry-run=true`;
const snapshot = (c: AutoClient) => new Map([...c.held].map(([t, m]) => [t, new Map(m)]));
const same = (a: Map<string, Map<string, string>>, b: Map<string, Map<string, string>>) =>
  [...new Set([...a.keys(), ...b.keys()])].every((t) => {
    const x = a.get(t) ?? new Map();
    const y = b.get(t) ?? new Map();
    return x.size === y.size && [...x].every(([n, v]) => y.get(n) === v);
  });

test('dry run: the predicted diff is what the client then receives (property)', async () => {
  const h = await startOpsHub();
  try {
    for (const s of SERVICES) await register(h.hub, s, 1000);
    const c = autoClient(h.hub.grpcPort, 'envoy-a', { eds: SERVICES });
    await until(() => SERVICES.every((s) => c.held.get(TypeUrl.ClusterLoadAssignment)?.has(s)), 'initial sync');
    await fc.assert(
      fc.asyncProperty(change, async (ch) => {
        const before = snapshot(c);
        const index = h.hub.catalog.lastIndex();
        const dry = await call(h.hub, ch.method, withDry(ch.url), ch.body);
        assert.equal(dry.status, 200, dry.text);
        assert.equal(h.hub.catalog.lastIndex(), index, 'a dry run writes nothing');
        assert.equal(dry.json.dryRun, true);
        const mine = dry.json.nodes.find((n: any) => n.node === 'envoy-a');
        if (!mine) assert.ok(dry.json.unaffected.includes('envoy-a'));
        // The prediction, applied to what the client holds.
        const expected = snapshot(c);
        for (const a of mine?.added ?? []) expected.get(REST[a.type]!)!.set(a.name, a.version);
        for (const x of mine?.changed ?? []) {
          assert.equal(expected.get(REST[x.type]!)!.get(x.name), x.from, `${x.type} ${x.name}: the "from" version is what the client holds`);
          expected.get(REST[x.type]!)!.set(x.name, x.to);
        }
        for (const r of mine?.removed ?? []) expected.get(REST[r.type]!)!.delete(r.name);
        const real = await call(h.hub, ch.method, ch.url, ch.body);
        assert.ok(real.status === 200 || real.status === 409, real.text);
        if (dry.json.changes) assert.ok(real.index > index, 'the real write moved the index');
        else assert.ok(same(before, expected));
        await until(() => same(snapshot(c), expected), `the client to hold the predicted state after ${ch.method} ${ch.url}`, 3_000).catch((err) => {
          throw new Error(`${(err as Error).message}\npredicted ${JSON.stringify(mine)}\nheld ${JSON.stringify([...c.held].map(([t, m]) => [t, [...m]]))}`);
        });
      }),
      { numRuns: 25 },
    );
    c.close();
  } finally {
    await h.close();
  }
});

test('dry run: offline nodes, refusals, bad input and routes that do not take it', async () => {
  const h = await startOpsHub();
  try {
    await register(h.hub, 'web', 8080);
    const c = autoClient(h.hub.grpcPort, 'was-here');
    await until(() => c.seen.length > 0 && h.ops.history.of('was-here').length > 0, 'a push');
    c.close();
    await until(() => h.hub.http && !(h.ops.history.nodes().length === 0), 'known node');
    const dry = await call(h.hub, 'PUT', '/v1/catalog/register?dry-run=true', { Node: 'n1', Address: '127.0.0.1', Service: { Service: 'new', Port: 1 } });
    const offline = await until(async () => {
      const d = await call(h.hub, 'PUT', '/v1/catalog/register?dry-run=true', { Node: 'n1', Address: '127.0.0.1', Service: { Service: 'new', Port: 1 } });
      return d.json.nodes.find((n: any) => n.node === 'was-here' && !n.connected);
    }, 'the offline node in the answer');
    assert.equal(dry.status, 200);
    assert.ok(offline.added.some((a: any) => a.type === 'clusters' && a.name === 'new'));
    const cas = await call(h.hub, 'PUT', '/v1/config?cas=12345&dry-run=true', { Kind: 'service-defaults', Name: 'web', Protocol: 'http' });
    assert.equal(cas.status, 200);
    assert.equal(cas.json.ok, false);
    assert.equal(cas.json.error.code, 'CONFLICT');
    const bad = await call(h.hub, 'PUT', '/v1/catalog/register?dry-run=true', { Node: 'n1', Service: { Service: 'x', Port: 'no' } });
    assert.equal(bad.status, 400);
    const notTaken = await call(h.hub, 'PUT', '/v1/agent/check/pass/nope?dry-run=true');
    assert.equal(notTaken.status, 400);
    assert.match(notTaken.text, /dry-run/);
    const badFlag = await call(h.hub, 'PUT', '/v1/config?dry-run=maybe', { Kind: 'service-defaults', Name: 'web', Protocol: 'http' });
    assert.equal(badFlag.status, 400);
    // The same through POST /v1/ops/dry-run (what `xdshub diff` and the dashboard send).
    const viaOps = await call(h.hub, 'POST', '/v1/ops/dry-run', { Method: 'PUT', Path: '/v1/catalog/register', Body: { Node: 'n1', Address: '127.0.0.1', Service: { Service: 'new', Port: 1 } } });
    assert.equal(viaOps.status, 200, viaOps.text);
    assert.ok(viaOps.json.nodes.some((n: any) => n.node === 'was-here'));
    assert.equal((await call(h.hub, 'POST', '/v1/ops/dry-run', { Method: 'GET', Path: '/v1/catalog/services' })).status, 400);
  } finally {
    await h.close();
  }
});

test('xdshub diff FILE prints the dry run of a change given as a file', async () => {
  const h = await startOpsHub();
  const dir = await tmpDir('ops-diff-cli');
  try {
    await register(h.hub, 'web', 8080);
    const c = autoClient(h.hub.grpcPort, 'envoy-cli');
    await until(() => c.held.get(TypeUrl.Cluster)?.has('web'), 'sync');
    const file = join(dir.path, 'change.json');
    writeFileSync(file, JSON.stringify({ Method: 'PUT', Path: '/v1/config', Body: { Kind: 'service-defaults', Name: 'web', Protocol: 'http2' } }));
    const index = h.hub.catalog.lastIndex();
    // Asynchronously: the hub answering the CLI runs in this process.
    const cli = await xdshub(['diff', '--hub', h.hub.httpUrl, file]);
    assert.equal(cli.status, 0, cli.stderr);
    assert.match(cli.stdout, /would apply; 1 node\(s\) affected/);
    assert.match(cli.stdout, /envoy-cli \(connected\)\n {2}~ clusters web\n {6}typedExtensionProtocolOptions: \(none\) → /);
    assert.equal(h.hub.catalog.lastIndex(), index, 'nothing written');
    const usage = await xdshub(['diff']);
    assert.equal(usage.status, 2);
    c.close();
  } finally {
    await h.close();
    await dir.cleanup();
  }
});

function xdshub(args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'src/cli/main.ts'), ...args], { cwd: REPO_ROOT, encoding: 'utf8' }, (err, stdout, stderr) =>
      resolve({ status: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}
