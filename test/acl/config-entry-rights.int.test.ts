// Every config entry kind's writes need the right its registry entry names
// (src/catalog/config-kinds.ts): router and splitter entries once needed none,
// so any token, even the anonymous one under default deny, could reroute a service.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { aclHub, as, ROOT, tokenWith } from './helpers';

test("service-router and service-splitter writes need service:write on the entry's name", async () => {
  const hub = await aclHub();
  try {
    const web = await tokenWith(hub, 'service "web" { policy = "write" }');
    // Routers and splitters need an HTTP protocol on their service, as Consul's do.
    for (const Name of ['web', 'db']) {
      assert.equal(
        (await as(hub, ROOT, 'PUT', '/v1/config', { Kind: 'service-defaults', Name, Protocol: 'http' })).status,
        200,
      );
    }
    for (const [Kind, body] of [
      ['service-router', { Routes: [] }],
      ['service-splitter', { Splits: [{ Weight: 100 }] }],
    ] as const) {
      const before = hub.catalog.lastIndex();
      const anon = await as(hub, undefined, 'PUT', '/v1/config', { Kind, Name: 'db', ...body });
      assert.equal(anon.status, 403, `${Kind}: the anonymous token`);
      const other = await as(hub, web.secret, 'PUT', '/v1/config', { Kind, Name: 'db', ...body });
      assert.equal(other.status, 403, `${Kind}: another service's token`);
      assert.match(other.text, /lacks permission 'service:write' on "db"/);
      assert.equal(hub.catalog.lastIndex(), before, 'a refused write changes nothing');
      const own = await as(hub, web.secret, 'PUT', '/v1/config', { Kind, Name: 'web', ...body });
      assert.equal(own.status, 200, `${Kind}: ${own.text}`);
      assert.equal(
        (await as(hub, undefined, 'DELETE', `/v1/config/${Kind}/web`)).status,
        403,
        `${Kind}: anonymous delete`,
      );
      assert.equal((await as(hub, ROOT, 'DELETE', `/v1/config/${Kind}/web`)).status, 200);
    }
  } finally {
    await hub.close();
  }
});
