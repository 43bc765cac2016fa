// Dry runs: ?dry-run=true on the write routes predicts what would be added,
// changed and removed — each distinct diff once, with the nodes that get it —
// and writes nothing. Property: for random changes, the prediction equals what
// each real client then receives when the same change is applied.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { TypeUrl } from '../../src/xds/transport/type-urls';
import { call, REPO_ROOT } from '../helpers/hub';
import { execFileTracked } from '../helpers/procs';
import { tmpDir } from '../helpers/tmp';
import { type AutoClient, autoClient, type OpsHub, register, startOpsHub, until } from './helpers';

const SERVICES = ['alpha', 'beta', 'gamma'];
const REST: Record<string, string> = { clusters: TypeUrl.Cluster, endpoints: TypeUrl.ClusterLoadAssignment };

type Change = { method: string; url: string; body?: unknown };
const change: fc.Arbitrary<Change> = fc.oneof(
  fc
    .record({
      s: fc.constantFrom(...SERVICES),
      port: fc.integer({ min: 1000, max: 1003 }),
      node: fc.constantFrom('n1', 'n2'),
      tag: fc.constantFrom('v1', 'v2'),
    })
    .map(({ s, port, node, tag }) => ({
      method: 'PUT',
      url: '/v1/catalog/register',
      body: { Node: node, Address: '127.0.0.1', Service: { Service: s, ID: `${s}-${port}`, Port: port, Tags: [tag] } },
    })),
  fc
    .record({
      s: fc.constantFrom(...SERVICES),
      port: fc.integer({ min: 1000, max: 1003 }),
      node: fc.constantFrom('n1', 'n2'),
    })
    .map(({ s, port, node }) => ({
      method: 'PUT',
      url: '/v1/catalog/deregister',
      body: { Node: node, ServiceID: `${s}-${port}` },
    })),
  fc
    .record({ s: fc.constantFrom(...SERVICES), p: fc.constantFrom('http', 'http2', 'grpc', 'tcp') })
    .map(({ s, p }) => ({
      method: 'PUT',
      url: '/v1/config',
      body: { Kind: 'service-defaults', Name: s, Protocol: p },
    })),
  fc.constantFrom(...SERVICES).map((s) => ({ method: 'DELETE', url: `/v1/config/service-defaults/${s}` })),
  fc.record({ s: fc.constantFrom(...SERVICES), port: fc.integer({ min: 1000, max: 1003 }) }).map(({ s, port }) => ({
    method: 'PUT',
    url: '/v1/txn',
    body: [{ Service: { Verb: 'set', Node: 'n1', Service: { Service: s, ID: `${s}-t${port}`, Port: port } } }],
  })),
);

const withDry = (url: string) => `${url}${url.includes('?') ? '&' : '?'}dry-run=true`;
/** A service no random change touches: every client follows its cluster and endpoints (see barrier()). */
const BARRIER = 'zz-barrier';
/** What a client holds, per type URL (name → version), without the barrier's resources. */
const snapshot = (c: AutoClient) =>
  new Map([...c.held].map(([t, m]) => [t, new Map([...m].filter(([n]) => n !== BARRIER))]));
const same = (a: Map<string, Map<string, string>>, b: Map<string, Map<string, string>>) =>
  [...new Set([...a.keys(), ...b.keys()])].every((t) => {
    const x = a.get(t) ?? new Map();
    const y = b.get(t) ?? new Map();
    return x.size === y.size && [...x].every(([n, v]) => y.get(n) === v);
  });

/** The diff a node is listed under (undefined: unaffected), checking it is listed exactly once. */
function diffOf(answer: any, node: string): any {
  const groups = answer.diffs.filter((d: any) => d.nodes.includes(node));
  const unaffected = answer.unaffected.filter((n: string) => n === node).length;
  assert.equal(groups.length + unaffected, 1, `${node} is listed once (${JSON.stringify(answer)})`);
  return groups[0];
}

/**
 * Changes the barrier service's cluster and its endpoints and waits until every
 * client holds both. A stream delivers each type's changes in log order, so
 * then every client has received whatever an earlier write pushed to it: a
 * prediction that missed a change cannot pass by being checked too early.
 */
async function barrier(h: OpsHub, clients: AutoClient[], round: number): Promise<void> {
  const held = (c: AutoClient) => [
    c.held.get(TypeUrl.Cluster)?.get(BARRIER),
    c.held.get(TypeUrl.ClusterLoadAssignment)?.get(BARRIER),
  ];
  const before = clients.map(held);
  assert.equal(
    (
      await call(h.hub, 'PUT', '/v1/config', {
        Kind: 'service-defaults',
        Name: BARRIER,
        Protocol: round % 2 ? 'http2' : 'http',
      })
    ).status,
    200,
  );
  await register(h.hub, BARRIER, 20_000 + round, 'n3');
  await until(
    () => clients.every((c, i) => held(c).every((v, k) => v !== undefined && v !== before[i]![k])),
    'every client to hold the barrier',
    60_000,
  );
}

test('dry run: the predicted diff is what each client then receives; each distinct diff once (property)', async () => {
  const h = await startOpsHub();
  try {
    for (const s of SERVICES) await register(h.hub, s, 1000);
    // Two nodes that follow the same names (their diffs are always one entry) and one that follows fewer.
    const clients = [
      autoClient(h.hub.grpcPort, 'envoy-a', { eds: [...SERVICES, BARRIER] }),
      autoClient(h.hub.grpcPort, 'envoy-a2', { eds: [...SERVICES, BARRIER] }),
      autoClient(h.hub.grpcPort, 'envoy-b', { eds: ['alpha', BARRIER] }),
    ];
    let round = 0;
    await barrier(h, clients, round);
    await fc.assert(
      fc.asyncProperty(change, async (ch) => {
        const index = h.hub.catalog.lastIndex();
        const dry = await call(h.hub, ch.method, withDry(ch.url), ch.body);
        assert.equal(dry.status, 200, dry.text);
        assert.equal(h.hub.catalog.lastIndex(), index, 'a dry run writes nothing');
        assert.equal(dry.json.dryRun, true);
        assert.deepEqual(dry.json.offline, []);
        // Each distinct diff once, with every node that gets it.
        const texts = dry.json.diffs.map(({ nodes, ...d }: any) => JSON.stringify(d));
        assert.equal(new Set(texts).size, texts.length, 'no diff is listed twice');
        assert.equal(
          diffOf(dry.json, 'envoy-a'),
          diffOf(dry.json, 'envoy-a2'),
          'nodes that get the same diff share one entry',
        );
        // The prediction, applied to what each client holds.
        const expected = new Map<AutoClient, Map<string, Map<string, string>>>();
        for (const c of clients) {
          const mine = diffOf(dry.json, c.id);
          const e = snapshot(c);
          for (const a of mine?.added ?? []) e.get(REST[a.type]!)!.set(a.name, a.version);
          for (const x of mine?.changed ?? []) {
            assert.equal(
              e.get(REST[x.type]!)!.get(x.name),
              x.from,
              `${c.id}: ${x.type} ${x.name}: the "from" version is what the client holds`,
            );
            e.get(REST[x.type]!)!.set(x.name, x.to);
          }
          for (const r of mine?.removed ?? []) e.get(REST[r.type]!)!.delete(r.name);
          if (!dry.json.changes) assert.ok(same(snapshot(c), e), 'a change that changes nothing predicts nothing');
          expected.set(c, e);
        }
        const real = await call(h.hub, ch.method, ch.url, ch.body);
        assert.ok(real.status === 200 || real.status === 409, real.text);
        if (dry.json.changes) assert.ok(real.index > index, 'the real write moved the index');
        await barrier(h, clients, ++round);
        for (const c of clients) {
          // A push split in several responses may still be arriving; a wrong prediction never converges.
          await until(
            () => same(snapshot(c), expected.get(c)!),
            `${c.id} to hold the predicted state after ${ch.method} ${ch.url}`,
            60_000,
          ).catch((err) => {
            throw new Error(
              `${(err as Error).message}\npredicted ${JSON.stringify(dry.json)}\nheld ${JSON.stringify([...c.held].map(([t, m]) => [t, [...m]]))}`,
            );
          });
        }
      }),
      { numRuns: 25 },
    );
    clients.forEach((c) => c.close());
  } finally {
    await h.close();
  }
});

test('dry run: offline nodes, refusals, bad input and routes that do not take it', async () => {
  const h = await startOpsHub();
  try {
    await register(h.hub, 'web', 8080);
    const c = autoClient(h.hub.grpcPort, 'was-here');
    await until(async () => c.seen.length > 0 && (await h.ops.history.of('was-here')).length > 0, 'a push');
    c.close();
    await until(async () => (await h.ops.history.nodes()).length > 0, 'known node');
    const dry = await call(h.hub, 'PUT', '/v1/catalog/register?dry-run=true', {
      Node: 'n1',
      Address: '127.0.0.1',
      Service: { Service: 'new', Port: 1 },
    });
    const offline = await until(async () => {
      const d = await call(h.hub, 'PUT', '/v1/catalog/register?dry-run=true', {
        Node: 'n1',
        Address: '127.0.0.1',
        Service: { Service: 'new', Port: 1 },
      });
      return d.json.offline.includes('was-here') ? diffOf(d.json, 'was-here') : undefined;
    }, 'the offline node in the answer');
    assert.equal(dry.status, 200);
    assert.ok(offline.added.some((a: any) => a.type === 'clusters' && a.name === 'new'));
    const cas = await call(h.hub, 'PUT', '/v1/config?cas=12345&dry-run=true', {
      Kind: 'service-defaults',
      Name: 'web',
      Protocol: 'http',
    });
    assert.equal(cas.status, 200);
    assert.equal(cas.json.ok, false);
    assert.equal(cas.json.error.code, 'CONFLICT');
    const bad = await call(h.hub, 'PUT', '/v1/catalog/register?dry-run=true', {
      Node: 'n1',
      Service: { Service: 'x', Port: 'no' },
    });
    assert.equal(bad.status, 400);
    const notTaken = await call(h.hub, 'PUT', '/v1/agent/check/pass/nope?dry-run=true');
    assert.equal(notTaken.status, 400);
    assert.match(notTaken.text, /dry-run/);
    const badFlag = await call(h.hub, 'PUT', '/v1/config?dry-run=maybe', {
      Kind: 'service-defaults',
      Name: 'web',
      Protocol: 'http',
    });
    assert.equal(badFlag.status, 400);
    // The same through POST /v1/ops/dry-run (what `xdshub diff` and the dashboard send).
    const viaOps = await call(h.hub, 'POST', '/v1/ops/dry-run', {
      Method: 'PUT',
      Path: '/v1/catalog/register',
      Body: { Node: 'n1', Address: '127.0.0.1', Service: { Service: 'new', Port: 1 } },
    });
    assert.equal(viaOps.status, 200, viaOps.text);
    assert.ok(viaOps.json.diffs.some((d: any) => d.nodes.includes('was-here')));
    assert.equal(
      (await call(h.hub, 'POST', '/v1/ops/dry-run', { Method: 'GET', Path: '/v1/catalog/services' })).status,
      400,
    );
  } finally {
    await h.close();
  }
});

test('xdshub diff FILE prints the dry run of a change given as a file', async () => {
  const h = await startOpsHub();
  const dir = await tmpDir('ops-diff-cli');
  try {
    await register(h.hub, 'web', 8080);
    // A node that was here and left: the history knows it; it would get the same diff as the connected two.
    const gone = autoClient(h.hub.grpcPort, 'envoy-gone');
    await until(() => gone.held.get(TypeUrl.Cluster)?.has('web'), 'sync');
    gone.close();
    await until(
      async () =>
        (await call(h.hub, 'GET', '/v1/xds/nodes')).json.some((n: any) => n.id === 'envoy-gone' && !n.connected),
      'envoy-gone offline',
    );
    const clients = [autoClient(h.hub.grpcPort, 'envoy-cli-1'), autoClient(h.hub.grpcPort, 'envoy-cli-2')];
    await until(() => clients.every((c) => c.held.get(TypeUrl.Cluster)?.has('web')), 'sync');
    const file = join(dir.path, 'change.json');
    writeFileSync(
      file,
      JSON.stringify({
        Method: 'PUT',
        Path: '/v1/config',
        Body: { Kind: 'service-defaults', Name: 'web', Protocol: 'http2' },
      }),
    );
    const index = h.hub.catalog.lastIndex();
    // Asynchronously: the hub answering the CLI runs in this process.
    const cli = await xdshub(['diff', '--hub', h.hub.httpUrl, file]);
    assert.equal(cli.status, 0, cli.stderr);
    assert.match(cli.stdout, /would apply; 3 node\(s\) affected, 0 unaffected\n/);
    assert.match(
      cli.stdout,
      /\n3 node\(s\): envoy-cli-1, envoy-cli-2, envoy-gone \(offline\)\n {2}~ clusters web\n {6}typedExtensionProtocolOptions: \(none\) → /,
    );
    assert.equal(h.hub.catalog.lastIndex(), index, 'nothing written');
    const json = JSON.parse((await xdshub(['diff', '--json', '--hub', h.hub.httpUrl, file])).stdout);
    assert.deepEqual(
      json.diffs.map((d: any) => d.nodes),
      [['envoy-cli-1', 'envoy-cli-2', 'envoy-gone']],
    );
    assert.deepEqual(json.offline, ['envoy-gone']);
    const usage = await xdshub(['diff']);
    assert.equal(usage.status, 2);
    clients.forEach((c) => c.close());
  } finally {
    await h.close();
    await dir.cleanup();
  }
});

function xdshub(args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFileTracked(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'src/cli/main.ts'), ...args], {
      cwd: REPO_ROOT,
    }).then(
      ({ stdout, stderr }) => resolve({ status: 0, stdout, stderr }),
      (err: { code?: number; stdout: string; stderr: string }) =>
        resolve({ status: Number(err.code ?? 1), stdout: err.stdout, stderr: err.stderr }),
    );
  });
}
