// Envoy's own validation in dry runs and rollouts (--envoy-validate-binary,
// docs/operator-tools.md "Envoy validation"), with a real Envoy gateway
// connected as the canary. The change Envoy rejects is a service-router
// PathRegex that RE2 parses, so the hub's write takes it, but that compiles
// past Envoy's RE2 program size limit (a runtime setting of each Envoy, which
// the hub cannot know). The dry run shows Envoy's verdict with its message; a
// rollout of that change is refused before the canary gets anything: the
// Envoy's config_dump and the versions it ACKed do not move. The same change
// written without a rollout does reach the Envoy, which NACKs it: the refusal
// kept a real rejection away.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { formatPrediction } from '../../src/cli/dry-run';
import { formatOne } from '../../src/cli/rollout';
import type { ALL_PARTS, HubWith } from '../../src/hub';
import {
  type Backend,
  freePort,
  hubCall,
  startBackend,
  startGateway,
  startHubWithXds,
  untilServedBy,
} from '../envoy/harness';
import { launchChromium } from '../helpers/chromium';
import { type Envoy, envoyBinary } from '../helpers/envoy';
import { call, REPO_ROOT } from '../helpers/hub';
import { tmpDir } from '../helpers/tmp';
import { until } from './helpers';

let hub: HubWith<typeof ALL_PARTS>;
let envoy: Envoy;
let port: number;
const backends: Backend[] = [];
const GATEWAY_NODE = 'canary-gw';

const router = (regex: string) => ({
  Kind: 'service-router',
  Name: 'web',
  Routes: [{ Match: { HTTP: { PathRegex: regex } }, Destination: { Service: 'api' } }],
});
const TOO_BIG = '/api/.{1,1000}';
const routeName = () => `edge:${port}`;
const OUT = join(REPO_ROOT, '.tmp', 'test-output', 'ui');

/** The RouteConfigurations Envoy holds: name → [version, the route config as Envoy prints it]. */
async function envoyRoutes(): Promise<Map<string, { version: string; text: string }>> {
  const dump = (await envoy.configDump()) as { configs: Record<string, any>[] };
  const out = new Map<string, { version: string; text: string }>();
  for (const c of dump.configs)
    if (String(c['@type']).endsWith('RoutesConfigDump'))
      for (const d of c['dynamic_route_configs'] ?? [])
        out.set(d.route_config.name, { version: d.version_info, text: JSON.stringify(d.route_config) });
  return out;
}

/** What the hub's xDS server says the gateway ACKed, per type: name → version. */
function acked(): Record<string, Record<string, string>> {
  const s = hub.xds.clients().find((c) => c.node?.id === GATEWAY_NODE);
  return Object.fromEntries((s?.types ?? []).map((t) => [t.type, t.acked]));
}

const dryRun = (body: unknown) =>
  call(hub, 'POST', '/v1/ops/dry-run', { Method: 'PUT', Path: '/v1/config', Body: body });
const gatewayGroup = (answer: any) => answer.diffs.find((d: any) => d.nodes.includes(GATEWAY_NODE));

before(async () => {
  hub = await startHubWithXds({ envoyValidateBinary: envoyBinary(), xdsDebounceMs: 5, xdsMaxDelayMs: 50 });
  port = await freePort();
  for (const name of ['web', 'api']) {
    const b = await startBackend(name);
    backends.push(b);
    await hubCall(hub.httpUrl, 'PUT', '/v1/agent/service/register', {
      ID: name,
      Name: name,
      Address: '127.0.0.1',
      Port: b.port,
    });
    await hubCall(hub.httpUrl, 'PUT', '/v1/config', { Kind: 'service-defaults', Name: name, Protocol: 'http' });
  }
  await hubCall(hub.httpUrl, 'PUT', '/v1/config', {
    Kind: 'ingress-gateway',
    Name: 'edge',
    Listeners: [{ Port: port, Protocol: 'http', Services: [{ Name: 'web', Hosts: ['web'] }] }],
  });
  envoy = await startGateway(hub, 'delta-ads', 'edge', GATEWAY_NODE);
  await untilServedBy(envoy, port, 'web', { host: 'web' });
  await until(async () => (await envoyRoutes()).has(routeName()), 'Envoy holds the gateway route');
});

after(async () => {
  await envoy?.stop();
  await hub?.close();
  for (const b of backends) await b.close();
});

test("a dry run shows Envoy's verdict on what the Envoys would get: the rejection with Envoy's message, and an accepted change", async () => {
  const bad = await dryRun(router(TOO_BIG));
  assert.equal(bad.status, 200, bad.text);
  assert.equal(bad.json.ok, true, 'the write itself would be taken');
  const group = gatewayGroup(bad.json);
  assert.ok(group, `the gateway is affected: ${bad.text}`);
  assert.ok(group.changed.some((c: any) => c.type === 'routes' && c.name === routeName()));
  assert.equal(group.envoy.ok, false, JSON.stringify(group.envoy));
  assert.deepEqual(
    group.envoy.rejected.map((r: any) => `${r.type} ${r.name}`),
    [`routes ${routeName()}`],
  );
  assert.match(
    group.envoy.rejected[0].message,
    /^regex '\/api\/\.\{1,1000\}' RE2 program size of \d+ > max program size/,
  );
  // The CLI's text says the same.
  assert.match(formatPrediction(bad.json), new RegExp(`envoy: rejects routes ${routeName()}: regex '/api/`));

  const good = await dryRun(router('/api/.*'));
  assert.equal(good.status, 200, good.text);
  const ok = gatewayGroup(good.json);
  assert.ok(ok.changed.some((c: any) => c.name === routeName()));
  assert.equal(ok.envoy.ok, true, JSON.stringify(ok.envoy));
  assert.ok(ok.envoy.ms > 0, 'Envoy was run');
  assert.match(formatPrediction(good.json), /envoy: accepts \(\d+\.\d\d s\)/);
  assert.equal((await call(hub, 'GET', '/v1/config/service-router/web')).status, 404, 'dry runs write nothing');
});

test("the dashboard's dry-run page shows Envoy's verdict beside each group", async () => {
  const profile = await tmpDir('ops-ui-envoy');
  const context = await launchChromium(profile.path);
  try {
    const page = await context.newPage();
    await page.goto(`${hub.httpUrl}/ui/#dry-run`);
    await page.fill('#change', JSON.stringify({ Method: 'PUT', Path: '/v1/config', Body: router(TOO_BIG) }));
    await page.click('#run');
    await page.waitForSelector(`#prediction-table >> text=${GATEWAY_NODE}`);
    const verdict = (await page.textContent('#prediction-table .envoy-verdict')) ?? '';
    assert.match(verdict, /Envoy rejects routes edge:\d+: regex '\/api\/\.\{1,1000\}' RE2 program size/);
    mkdirSync(OUT, { recursive: true });
    await page.screenshot({ path: join(OUT, 'dry-run-envoy.png'), fullPage: true });
  } finally {
    await context.close();
    await profile.cleanup();
  }
});

test('a rollout with a change a real Envoy rejects is stopped by the Envoy validation before the canary gets it', async () => {
  const routesBefore = await envoyRoutes();
  const ackedBefore = acked();
  const indexBefore = (await call(hub, 'GET', '/v1/catalog/services')).index;
  const res = await call(hub, 'PUT', '/v1/config', router(TOO_BIG), {
    'x-xdshub-rollout': `canary=1,window=10m,select=id:${GATEWAY_NODE}`,
  });
  assert.equal(res.status, 400, res.text);
  assert.match(
    res.text,
    /refused, nothing was written: Envoy rejects what canary-gw would get: routes edge:\d+: regex/,
  );
  const id = String(res.headers['x-xdshub-rollout-id']);
  const rollout = (await call(hub, 'GET', `/v1/xds/rollouts/${id}`)).json;
  assert.equal(rollout.state, 'refused');
  assert.equal(rollout.index, null);
  assert.deepEqual(rollout.canaries, [GATEWAY_NODE]);
  assert.match(rollout.reason, /RE2 program size of \d+ > max program size/);
  assert.match(formatOne(rollout), new RegExp(`rollout ${id}: refused — Envoy rejects what canary-gw would get`));
  assert.deepEqual(rollout.held, [], 'no node is held');

  // Nothing was written, and the Envoy holds and ACKed what it did before.
  assert.equal((await call(hub, 'GET', '/v1/config/service-router/web')).status, 404);
  assert.equal((await call(hub, 'GET', '/v1/catalog/services')).index, indexBefore);
  // A later write reaches the Envoy: had the refused change been sent, the Envoy would have seen it by then.
  const mark = await call(hub, 'PUT', '/v1/config', router('/web/.*'));
  assert.equal(mark.status, 200, mark.text);
  const after = await until(async () => {
    const r = (await envoyRoutes()).get(routeName());
    return r?.text.includes('/web/.*') ? r : undefined;
  }, 'the Envoy gets the next write');
  assert.notEqual(after.version, routesBefore.get(routeName())!.version);
  assert.ok(!after.text.includes('1,1000'), 'the Envoy never held the rejected regex');
  assert.equal(acked()['RDS']?.[routeName()], after.version, "the hub's record of the Envoy's ACK agrees");
  assert.notDeepEqual(ackedBefore['RDS'], undefined);
  assert.equal((await envoy.rejectedUpdates()).total, 0, 'the Envoy rejected nothing: it was never sent the change');

  // An accepted change goes through the validation to the canary.
  const good = await call(hub, 'PUT', '/v1/config', router('/api/.*'), {
    'x-xdshub-rollout': `canary=1,window=10m,select=id:${GATEWAY_NODE}`,
  });
  assert.equal(good.status, 200, good.text);
  const goodId = String(good.headers['x-xdshub-rollout-id']);
  assert.equal((await call(hub, 'GET', `/v1/xds/rollouts/${goodId}`)).json.state, 'canary');
  await until(async () => (await envoyRoutes()).get(routeName())?.text.includes('/api/.*'), 'the canary gets it');
  assert.equal((await call(hub, 'POST', `/v1/xds/rollouts/${goodId}/proceed`)).status, 200);

  // Written without a rollout (plain writes are not put to Envoy), the same change reaches the Envoy: it NACKs it.
  assert.equal((await call(hub, 'PUT', '/v1/config', router(TOO_BIG))).status, 200);
  const nack = await until(() => {
    const s = hub.xds.clients().find((c) => c.node?.id === GATEWAY_NODE);
    return s?.types.find((t) => t.type === 'RDS')?.lastNack ?? undefined;
  }, 'the Envoy NACKs the change written directly');
  assert.match(nack.message, /RE2 program size of \d+ > max program size/);
});
