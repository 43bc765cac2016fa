// Staged rollouts over real gRPC: a canary that NACKs stops the change and the
// other nodes never receive it; rollback writes the inverse; a quiet window lets
// the change through to everyone; a named service's check turning critical stops it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseRolloutSpec } from '../../src/ops/rollout';
import { TypeUrl } from '../../src/xds/transport/type-urls';
import { type Answer, call } from '../helpers/hub';
import { type AutoClient, autoClient, type OpsHub, register, startOpsHub, until } from './helpers';

const put = (h: OpsHub, url: string, body: unknown, rollout: string): Promise<Answer> =>
  call(h.hub, 'PUT', url, body, { 'x-xdshub-rollout': rollout });

const webVersion = (c: AutoClient) => c.held.get(TypeUrl.Cluster)?.get('web');
const everSaw = (c: AutoClient, version: string) => c.seen.some((s) => s.resources.get('web') === version);

async function fleet(h: OpsHub, nack?: (res: any[]) => string | undefined) {
  await register(h.hub, 'web', 8080);
  const canary = autoClient(h.hub.grpcPort, 'canary-1', {
    nack: (t, res) => (t === TypeUrl.Cluster ? nack?.(res) : undefined),
  });
  const others = [autoClient(h.hub.grpcPort, 'edge-1'), autoClient(h.hub.grpcPort, 'edge-2')];
  const all = [canary, ...others];
  await until(() => all.every((c) => webVersion(c)), 'every node holds web');
  await until(async () => (await h.ops.history.nodes()).length === 3, 'three nodes known');
  return { canary, others, all, original: webVersion(canary)! };
}

test('a canary NACK holds the change; the others never receive it; rollback writes the inverse', async () => {
  const h = await startOpsHub();
  try {
    const { canary, others, all, original } = await fleet(h, (res) =>
      res.some(
        (r) =>
          r.name === 'web' &&
          r.typedExtensionProtocolOptions &&
          Object.keys(r.typedExtensionProtocolOptions).length > 0,
      )
        ? 'web: http2 options refused by this proxy'
        : undefined,
    );
    const res = await put(
      h,
      '/v1/config',
      { Kind: 'service-defaults', Name: 'web', Protocol: 'http2' },
      'canary=1,window=30s,select=id:canary-*',
    );
    assert.equal(res.status, 200, res.text);
    const id = String(res.headers['x-xdshub-rollout-id']);
    const held = await until(async () => {
      const r = (await call(h.hub, 'GET', `/v1/xds/rollouts/${id}`)).json;
      return r.state === 'held' ? r : undefined;
    }, 'the rollout to be held');
    assert.deepEqual(held.canaries, ['canary-1']);
    assert.match(held.reason, /NACK from canary-1 \(CDS\): web: http2 options refused/);
    const bad = canary.seen.find((s) => s.nacked)!.resources.get('web')!;
    assert.notEqual(bad, original);
    // The hold is visible in metrics.
    const metrics = await call(h.hub, 'GET', '/metrics');
    assert.match(metrics.text, /xdshub_rollouts\{state="held"\} 1/);
    // Other writes go on; the held nodes stay on the pinned state meanwhile.
    await register(h.hub, 'other', 9000);
    await until(() => canary.held.get(TypeUrl.Cluster)?.has('other'), 'the canary gets later changes');
    for (const o of others) assert.ok(!everSaw(o, bad), `${o.id} never received the held change`);

    const rb = await call(h.hub, 'POST', `/v1/xds/rollouts/${id}/rollback`);
    assert.equal(rb.status, 200, rb.text);
    assert.equal(rb.json.state, 'rolled-back');
    assert.equal(
      (await call(h.hub, 'GET', '/v1/config/service-defaults/web')).status,
      404,
      'the inverse deleted the entry the change created',
    );
    await until(() => webVersion(canary) === original, 'the canary back on the original cluster');
    await until(
      () => others.every((o) => o.held.get(TypeUrl.Cluster)?.has('other')),
      'the others catch up after the hold',
    );
    for (const o of others) {
      assert.ok(!everSaw(o, bad), `${o.id} never received the rolled-back change`);
      assert.equal(webVersion(o), original);
    }
    assert.equal((await call(h.hub, 'POST', `/v1/xds/rollouts/${id}/rollback`)).status, 409);
    assert.equal((await call(h.hub, 'POST', '/v1/xds/rollouts/nope/rollback')).status, 404);
    all.forEach((c) => c.close());
  } finally {
    await h.close();
  }
});

test('proceed releases a hold at once; a quiet window lets the change reach everyone, never before it ends; one rollout at a time', async () => {
  const h = await startOpsHub();
  try {
    const { canary, others, all, original } = await fleet(h);
    const rollout = async (id: string) => (await call(h.hub, 'GET', `/v1/xds/rollouts/${id}`)).json;
    // A window no loaded machine outlasts: the canary has the change, the others do not, a second rollout waits.
    const res = await put(
      h,
      '/v1/config',
      { Kind: 'service-defaults', Name: 'web', Protocol: 'http2' },
      'canary=1,window=10m,select=id:canary-*',
    );
    assert.equal(res.status, 200, res.text);
    const id = String(res.headers['x-xdshub-rollout-id']);
    await until(() => webVersion(canary) !== original, 'the canary gets the change');
    const next = webVersion(canary)!;
    const second = await put(h, '/v1/config', { Kind: 'service-defaults', Name: 'web', Protocol: 'http' }, 'canary=1');
    assert.equal(second.status, 409);
    for (const o of others) assert.ok(!everSaw(o, next), `${o.id} does not get the change during the window`);
    const proceeded = await call(h.hub, 'POST', `/v1/xds/rollouts/${id}/proceed`);
    assert.equal(proceeded.status, 200, proceeded.text);
    assert.equal(proceeded.json.state, 'completed');
    await until(() => others.every((o) => webVersion(o) === next), 'everyone gets the change after proceed');

    // A short window that passes quietly: everyone gets the change, the others only once the window has ended.
    const mark = new Map(others.map((o) => [o, o.seen.length]));
    const quiet = await put(
      h,
      '/v1/config',
      { Kind: 'service-defaults', Name: 'web', Protocol: 'http' },
      'canary=1,window=300ms,select=id:canary-*',
    );
    assert.equal(quiet.status, 200, quiet.text);
    const done = await until(async () => {
      const r = await rollout(String(quiet.headers['x-xdshub-rollout-id']));
      return r.state === 'completed' ? r : undefined;
    }, 'the quiet window to complete the rollout');
    assert.equal(done.reason, null);
    await until(() => all.every((c) => webVersion(c) !== next), 'everyone gets the change after the window');
    for (const o of others) {
      const pushes = o.seen.slice(mark.get(o)).filter((s) => s.resources.has('web'));
      assert.ok(pushes.length > 0);
      for (const p of pushes)
        assert.ok(
          p.at >= Date.parse(done.endsAt),
          `${o.id} got web at ${new Date(p.at).toISOString()}, before the window ended (${done.endsAt})`,
        );
    }
    assert.equal((await call(h.hub, 'GET', '/v1/xds/rollouts')).json[0].state, 'completed');
    all.forEach((c) => c.close());
  } finally {
    await h.close();
  }
});

test('a named service turning critical stops the rollout', async () => {
  const h = await startOpsHub();
  try {
    const { all } = await fleet(h);
    await call(h.hub, 'PUT', '/v1/catalog/register', {
      Node: 'n1',
      Address: '127.0.0.1',
      Service: { Service: 'web', ID: 'web-8080', Port: 8080 },
      Check: { CheckID: 'web-ok', Name: 'web', Status: 'passing', ServiceID: 'web-8080' },
    });
    const res = await put(
      h,
      '/v1/catalog/register',
      { Node: 'n1', Address: '127.0.0.1', Service: { Service: 'web', ID: 'web-8081', Port: 8081 } },
      'canary=1,window=30s,health=web',
    );
    assert.equal(res.status, 200, res.text);
    const id = String(res.headers['x-xdshub-rollout-id']);
    await call(h.hub, 'PUT', '/v1/catalog/register', {
      Node: 'n1',
      Address: '127.0.0.1',
      SkipNodeUpdate: true,
      Check: { CheckID: 'web-ok', Name: 'web', Status: 'critical', ServiceID: 'web-8080' },
    });
    const r = await until(async () => {
      const x = (await call(h.hub, 'GET', `/v1/xds/rollouts/${id}`)).json;
      return x.state === 'held' ? x : undefined;
    }, 'held on health');
    assert.match(r.reason, /health: n1\/web-ok turned critical/);
    const rb = await call(h.hub, 'POST', `/v1/xds/rollouts/${id}/rollback`);
    assert.equal(rb.status, 200, rb.text);
    assert.equal(
      (await call(h.hub, 'GET', '/v1/catalog/service/web')).json.some((s: any) => s.ServiceID === 'web-8081'),
      false,
      'the inverse removed the new instance',
    );
    all.forEach((c) => c.close());
  } finally {
    await h.close();
  }
});

test('X-Xdshub-Rollout is parsed strictly', () => {
  assert.deepEqual(parseRolloutSpec('canary=2,window=5s,select=cluster:gw,health=a+b'), {
    canary: 2,
    windowMs: 5000,
    select: { kind: 'cluster', cluster: 'gw' },
    health: ['a', 'b'],
  });
  for (const bad of [
    '',
    'window=5s',
    'canary=0',
    'canary=x',
    'canary=1,select=foo',
    'canary=1,window=soon',
    'canary=1,speed=9',
  ]) {
    assert.throws(() => parseRolloutSpec(bad), /X-Xdshub-Rollout/, bad);
  }
});
