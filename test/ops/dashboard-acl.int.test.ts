// The dashboard behind ACLs, in Debian's headless Chromium (playwright-core):
// without a token the page asks for one (no empty table, no "reconnecting…");
// the token given is kept in sessionStorage and sent on every read and, as
// ?token=, on the event stream; a node's disconnect shows without a reload; a
// node's page lists each resource with its versions and ACK/NACK and its
// config; the filter narrows the nodes; intentions draw as a graph; the
// favicon is ui/favicon.svg; no page logs a console error. Screenshots go to
// .tmp/dashboard-shots/ (docs/dashboard.md describes the pages).
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import type { Hub } from '../../src/hub';
import { TypeUrl } from '../../src/xds/transport/type-urls';
import { AdsClient } from '../acl/ads-client';
import { aclHub, as, ROOT, tokenWith } from '../acl/helpers';
import { launchChromium } from '../helpers/chromium';
import { REPO_ROOT } from '../helpers/hub';
import { tmpDir } from '../helpers/tmp';
import { until } from './helpers';

const OUT = join(REPO_ROOT, '.tmp', 'dashboard-shots');
const NACK = 'cluster broken: unknown lb policy';
const READER = [
  'operator = "read"',
  'service_prefix "" {\n  policy = "read"\n  intentions = "read"\n}',
  'node_prefix "" { policy = "read" }',
].join('\n');

type Shot = (page: Page, name: string) => Promise<unknown>;

const registration = (name: string, port: number) => ({
  Node: 'n1',
  Address: '127.0.0.1',
  Service: { Service: name, Port: port },
});

/** A Delta client with a token: ACKs every response (with `nacks`: NACKs those carrying cluster `broken`). */
function ackingClient(port: number, id: string, token: string, nacks = false) {
  const client = new AdsClient(port, 'delta', id, token);
  const out = { client, responses: 0 };
  client.subscribe(TypeUrl.Cluster, ['*']);
  void (async () => {
    for (let r = await client.next(); r; r = await client.next()) {
      out.responses++;
      const broken = (r.resources as { name: string }[]).some((x) => x.name === 'broken') && nacks;
      if (!broken) client.ack(r);
      // AdsClient has no NACK of its own: write one on its stream, as ack() writes an ACK.
      else {
        const call = (client as unknown as { call: { write(m: unknown): void } }).call;
        call.write({ typeUrl: r.typeUrl, responseNonce: r.nonce, errorDetail: { code: 3, message: NACK } });
      }
    }
  })();
  return out;
}

/** Three services, three intentions between them (one deny). */
async function seed(hub: Hub): Promise<void> {
  for (const [name, port] of [
    ['web', 8080],
    ['api', 8081],
    ['db', 5432],
  ] as const) {
    const r = await as(hub, ROOT, 'PUT', '/v1/catalog/register', registration(name, port));
    assert.equal(r.status, 200, r.text);
  }
  const intentions = {
    api: [{ Name: 'web', Action: 'allow' }],
    db: [
      { Name: 'api', Action: 'allow' },
      { Name: 'web', Action: 'deny' },
    ],
  };
  for (const [dst, sources] of Object.entries(intentions)) {
    const r = await as(hub, ROOT, 'PUT', '/v1/config', { Kind: 'service-intentions', Name: dst, Sources: sources });
    assert.equal(r.status, 200, r.text);
  }
}

/** The event stream takes the token as ?token=, resolved as X-Consul-Token is: refused without or with a bad one. */
async function checkEventsToken(hub: Hub, secret: string): Promise<void> {
  const events = async (q: string) => {
    const r = await fetch(`${hub.httpUrl}/v1/ops/events${q}`);
    await r.body?.cancel();
    return [r.status, r.headers.get('content-type')];
  };
  assert.equal((await events(''))[0], 403);
  assert.equal((await events('?token=00000000-0000-4000-8000-000000000000'))[0], 403);
  assert.deepEqual(await events(`?token=${secret}`), [200, 'text/event-stream']);
}

/** No token: the login prompt, not an empty table; the refused probe is the only console error. */
async function checkLoginPrompt(page: Page, errors: string[], shot: Shot): Promise<void> {
  await page.waitForSelector('#login');
  assert.match((await page.textContent('#login')) ?? '', /ACLs on: a token is needed/);
  assert.equal(await page.$('#services'), null, 'no empty services table');
  assert.equal(await page.textContent('#status'), 'token needed');
  await shot(page, 'login');
  // The refused reads are the only errors Chromium logs before the login ("Failed to load resource: … 403").
  assert.ok(errors.length > 0 && errors.every((e) => /status of 403/.test(e)), errors.join('\n'));
  errors.length = 0;
}

/**
 * Sets a filter control until the count shows `count`: a redraw from the node poll can replace
 * the controls between Playwright finding one and dispatching to it, and that event is lost.
 */
function setFilter(page: Page, control: '#filter' | '#filter-state', value: string, count: string) {
  return until(async () => {
    if (control === '#filter') await page.fill(control, value);
    else await page.selectOption(control, value);
    return (await page.textContent('#filter-count')) === count;
  }, `${control} = "${value}" shows ${count}`);
}

async function checkFilter(page: Page, shot: Shot): Promise<void> {
  await setFilter(page, '#filter', 'bad', '1 of 2 node(s)');
  assert.equal(await page.evaluate('document.querySelector(\'tr[data-node="envoy-good"]\').hidden'), true);
  await setFilter(page, '#filter', '', '2 of 2 node(s)');
  await setFilter(page, '#filter-state', 'NACK', '1 of 2 node(s)');
  await shot(page, 'nodes-filtered');
  await setFilter(page, '#filter-state', 'all', '2 of 2 node(s)');
}

/** envoy-bad's page: each resource with served and held versions and its state, the config tabs, the history. */
async function checkNodePage(page: Page, shot: Shot): Promise<void> {
  await page.click('a[href="#node/envoy-bad"]');
  await page.waitForSelector('#resources tr[data-resource="CDS/web"] >> text=ACK');
  assert.match((await page.textContent('#resources tr[data-resource="CDS/broken"]')) ?? '', /NACK.*cluster broken/);
  const held = await page.textContent('#resources tr[data-resource="CDS/broken"] td:nth-child(4)');
  assert.equal(held, '—', 'the NACKed version is not held');
  await page.waitForSelector('[data-config-pane="clusters"] >> text=envoy.config.cluster.v3.Cluster');
  await page.waitForSelector('#history >> text=cluster broken: unknown lb policy');
  await shot(page, 'node');
  await page.click('button[data-config-tab="endpoints"]');
  assert.equal(await page.isHidden('[data-config-pane="clusters"]'), true);
  assert.equal(await page.isVisible('[data-config-pane="endpoints"]'), true);
}

/** The favicon is ui/favicon.svg, inlined (the hub serves only three files under /ui/); it decodes as an image. */
async function checkFavicon(page: Page): Promise<void> {
  const href = await page.getAttribute('link[rel=icon]', 'href');
  const svg = readFileSync(join(REPO_ROOT, 'ui', 'favicon.svg'), 'utf8').trim();
  assert.equal(href, `data:image/svg+xml,${encodeURIComponent(svg)}`);
  const decodes = `new Promise((ok) => { const i = new Image(); i.onload = () => ok(i.naturalWidth > 0);
    i.onerror = () => ok(false); i.src = ${JSON.stringify(href)}; })`;
  assert.equal(await page.evaluate(decodes), true, 'the favicon decodes');
}

test('dashboard with ACLs on: login, live disconnects, per-node resources and config, filter, intentions', async () => {
  mkdirSync(OUT, { recursive: true });
  const profile = await tmpDir('ops-ui-acl-profile');
  const hub = await aclHub({ xdsDebounceMs: 5, xdsMaxDelayMs: 50 });
  const context = await launchChromium(profile.path);
  const shot: Shot = (page, name) => page.screenshot({ path: join(OUT, `${name}.png`), fullPage: true });
  const clients: AdsClient[] = [];
  try {
    await seed(hub);
    const reader = await tokenWith(hub, READER);
    const good = ackingClient(hub.grpcPort, 'envoy-good', ROOT);
    const bad = ackingClient(hub.grpcPort, 'envoy-bad', ROOT, true);
    clients.push(good.client, bad.client);
    await until(() => good.responses > 0 && bad.responses > 0, 'both clients synced');

    await checkEventsToken(hub, reader.secret);

    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${hub.httpUrl}/ui/`);
    await checkLoginPrompt(page, errors, shot);

    await page.fill('#token', '00000000-0000-4000-8000-000000000000');
    await page.click('#login-button');
    await page.waitForSelector('#login-error >> text=ACL not found');
    errors.length = 0;

    await page.fill('#token', reader.secret);
    await page.click('#login-button');
    await page.waitForSelector('tr[data-service="web"]');
    await page.waitForFunction("document.getElementById('status')?.textContent === 'live'");
    assert.equal(await page.evaluate(`sessionStorage.getItem('xdshub-token')`), reader.secret);
    assert.equal(await page.$$eval('#intention-graph [data-edge]', (els) => els.length), 3);
    assert.ok(await page.$('#intention-graph .edge.deny[data-edge="web→db"]'), 'the deny intention is drawn red');
    await shot(page, 'services');

    await page.evaluate('window.loadedOnce = true');
    await page.goto(`${hub.httpUrl}/ui/#clients`);
    await page.waitForSelector('tr[data-node="envoy-good"][data-state="connected"]');
    await page.waitForSelector('tr[data-node="envoy-bad"]');
    await as(hub, ROOT, 'PUT', '/v1/catalog/register', registration('broken', 7070));
    await page.waitForSelector('tr[data-node="envoy-bad"] .nack-msg >> text=cluster broken: unknown lb policy');
    await shot(page, 'nodes');

    await checkFilter(page, shot);

    good.client.close();
    await page.waitForSelector('tr[data-node="envoy-good"][data-state="disconnected"]');
    assert.equal(await page.evaluate('window.loadedOnce'), true, 'the page was not reloaded');
    await shot(page, 'nodes-disconnected');

    await checkNodePage(page, shot);
    await checkFavicon(page);

    for (const p of ['config', 'dry-run', 'rollouts']) {
      await page.goto(`${hub.httpUrl}/ui/#${p}`);
      await page.waitForSelector(`main[data-page="${p}"]`);
      await shot(page, p);
    }
    assert.deepEqual(errors, []);

    // A token deleted while the page is open: the node pages' next read is refused and the login returns.
    await page.goto(`${hub.httpUrl}/ui/#clients`);
    await page.waitForSelector('tr[data-node="envoy-bad"]');
    assert.equal((await as(hub, ROOT, 'DELETE', `/v1/acl/token/${reader.accessor}`)).status, 200);
    await page.waitForSelector('#login-error >> text=ACL not found');

    await page.click('#logout');
    await page.waitForSelector('#login');
    assert.equal(await page.evaluate(`sessionStorage.getItem('xdshub-token')`), null);
  } finally {
    for (const c of clients) c.close();
    await context.close();
    await hub.close();
    await profile.cleanup();
  }
});
