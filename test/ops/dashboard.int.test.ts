// The dashboard in a real browser: Debian's headless Chromium driven by
// playwright-core. A service registered through the API appears without a
// reload, a NACK shows on the client's row, and every page renders; the
// screenshots go to .tmp/test-output/ui/ (docs/ui/ holds committed copies).
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { launchChromium } from '../helpers/chromium';
import { call, REPO_ROOT } from '../helpers/hub';
import { tmpDir } from '../helpers/tmp';
import { autoClient, register, startOpsHub, until } from './helpers';

const OUT = join(REPO_ROOT, '.tmp', 'test-output', 'ui');

test('dashboard: live services, NACKs on client rows, history, dry run, rollouts', async () => {
  mkdirSync(OUT, { recursive: true });
  const profile = await tmpDir('ops-ui-profile');
  const h = await startOpsHub();
  const context = await launchChromium(profile.path);
  const shot = (page: Page, name: string) => page.screenshot({ path: join(OUT, `${name}.png`), fullPage: true });
  try {
    await register(h.hub, 'web', 8080);
    const good = autoClient(h.hub.grpcPort, 'envoy-good');
    const bad = autoClient(h.hub.grpcPort, 'envoy-bad', {
      nack: (_t, res) => (res.some((r) => r.name === 'broken') ? 'cluster broken: unknown lb policy' : undefined),
    });
    await until(() => good.seen.length > 0 && bad.seen.length > 0, 'both clients synced');

    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    page.on('requestfailed', (r) => {
      if (!r.url().includes('/v1/ops/events')) errors.push(`${r.url()}: ${r.failure()?.errorText}`);
    });
    await page.goto(`${h.hub.httpUrl}/ui/`);
    await page.waitForSelector('tr[data-service="web"]');
    // Page-side code as strings: the tests compile without the DOM library.
    await page.waitForFunction("document.getElementById('status')?.textContent === 'live'");
    await page.evaluate('window.loadedOnce = true');
    await register(h.hub, 'payments', 9090);
    await page.waitForSelector('tr[data-service="payments"]');
    assert.equal(await page.evaluate('window.loadedOnce'), true, 'the page was not reloaded');
    await shot(page, 'services');

    await page.goto(`${h.hub.httpUrl}/ui/#clients`);
    await page.waitForSelector('tr[data-node="envoy-bad"]');
    await register(h.hub, 'broken', 7070);
    const row = await page.waitForSelector('tr[data-node="envoy-bad"] .nack-msg');
    assert.match((await row.textContent()) ?? '', /cluster broken: unknown lb policy/);
    assert.equal(await page.$('tr[data-node="envoy-good"] .nack-msg'), null, 'no NACK on the good client');
    await shot(page, 'clients');

    await call(h.hub, 'PUT', '/v1/config', { Kind: 'service-defaults', Name: 'web', Protocol: 'http2' });
    await page.goto(`${h.hub.httpUrl}/ui/#config`);
    await page.waitForSelector('#config >> text=service-defaults');
    await shot(page, 'config');

    await page.goto(`${h.hub.httpUrl}/ui/#node/envoy-bad`);
    await page.waitForSelector('#history >> text=cluster broken: unknown lb policy');
    await page.click('#history button[data-diff]');
    await page.waitForFunction(`(document.getElementById('diff')?.textContent ?? '').includes('"changed"')`);
    await shot(page, 'history');

    await page.goto(`${h.hub.httpUrl}/ui/#dry-run`);
    await page.fill(
      '#change',
      JSON.stringify({
        Method: 'PUT',
        Path: '/v1/config',
        Body: { Kind: 'service-defaults', Name: 'payments', Protocol: 'grpc' },
      }),
    );
    await page.click('#run');
    await page.waitForSelector('#prediction-table >> text=envoy-good');
    assert.match((await page.textContent('#prediction')) ?? '', /changed clusters payments/);
    // Both clients get the same diff: one row naming both.
    assert.equal(await page.evaluate("document.querySelectorAll('#prediction-table tr').length"), 2);
    assert.match((await page.textContent('#prediction-table')) ?? '', /2 node\(s\)envoy-bad envoy-good/);
    await shot(page, 'dry-run');

    await page.goto(`${h.hub.httpUrl}/ui/#rollouts`);
    await page.waitForSelector('#rollouts');
    const res = await h.hub.http.inject({
      method: 'PUT',
      url: '/v1/config',
      payload: JSON.stringify({ Kind: 'service-defaults', Name: 'payments', Protocol: 'http2' }),
      headers: { 'x-xdshub-rollout': 'canary=1,window=30s,select=id:envoy-good' },
    });
    assert.equal(res.statusCode, 200, res.body);
    await page.waitForSelector('#rollouts >> text=canary');
    await shot(page, 'rollouts');
    assert.deepEqual(errors, []);
    good.close();
    bad.close();
  } finally {
    await context.close();
    await h.close();
    await profile.cleanup();
  }
});
