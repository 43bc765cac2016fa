// ACLs on the catalog HTTP API: writes need write rights (Consul's 403 text),
// reads are filtered with X-Consul-Results-Filtered-By-ACLs, blocking queries
// held by a token that is deleted end with 403, and every route has a rule.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import { installAclGate } from '../../src/http/acl';
import { installErrorHandler } from '../../src/http/errors';
import { routePolicies } from '../../src/http/route-policy';
import { blockingQueriesWaiting } from '../helpers/hub';

import { aclHub, as, ROOT, registerBody, tokenWith } from './helpers';

test("writes need write rights on what they touch; the 403 is Consul's text", async () => {
  const hub = await aclHub();
  try {
    const web = await tokenWith(hub, 'service "web" { policy = "write" }\nnode "n1" { policy = "write" }');
    const before = hub.catalog.lastIndex();
    const denied = await as(hub, web.secret, 'PUT', '/v1/catalog/register', registerBody('n1', 'db'));
    assert.equal(denied.status, 403);
    assert.equal(
      denied.text,
      `Permission denied: token with AccessorID '${web.accessor}' lacks permission 'service:write' on "db"`,
    );
    assert.equal(hub.catalog.lastIndex(), before, 'a refused write changes nothing');
    assert.equal((await as(hub, web.secret, 'PUT', '/v1/catalog/register', registerBody('n1', 'web'))).status, 200);
    // The node exists unchanged: re-posting it with another service needs no node:write.
    const svcOnly = await tokenWith(hub, 'service "api" { policy = "write" }');
    assert.equal((await as(hub, svcOnly.secret, 'PUT', '/v1/catalog/register', registerBody('n1', 'api'))).status, 200);
    const moved = await as(hub, svcOnly.secret, 'PUT', '/v1/catalog/register', {
      ...registerBody('n1', 'api'),
      Address: '10.9.9.9',
    });
    assert.equal(moved.status, 403);
    assert.match(moved.text, /lacks permission 'node:write' on "n1"/);
    // Config entries by kind; txn per operation; agent endpoints.
    const cfg = await as(hub, web.secret, 'PUT', '/v1/config', {
      Kind: 'service-defaults',
      Name: 'db',
      Protocol: 'http',
    });
    assert.equal(cfg.status, 403);
    assert.equal(
      (await as(hub, web.secret, 'PUT', '/v1/config', { Kind: 'service-defaults', Name: 'web', Protocol: 'http' }))
        .status,
      200,
    );
    assert.match(
      (await as(hub, web.secret, 'PUT', '/v1/config', { Kind: 'mesh' })).text,
      /lacks permission 'mesh:write'/,
    );
    const txn = await as(hub, web.secret, 'PUT', '/v1/txn', [
      { Service: { Verb: 'set', Node: 'n1', Service: { Service: 'db', ID: 'db', Port: 1 } } },
    ]);
    assert.equal(txn.status, 403);
    assert.equal((await as(hub, web.secret, 'PUT', '/v1/agent/service/register', { Name: 'db', Port: 1 })).status, 403);
    assert.equal(
      (await as(hub, undefined, 'PUT', '/v1/catalog/deregister', { Node: 'n1', ServiceID: 'web' })).status,
      403,
    );
    assert.equal(
      (await as(hub, web.secret, 'PUT', '/v1/catalog/deregister', { Node: 'n1', ServiceID: 'web' })).status,
      200,
    );
  } finally {
    await hub.close();
  }
});

test('reads are filtered; X-Consul-Results-Filtered-By-ACLs is set when something was hidden (never for the anonymous token)', async () => {
  const hub = await aclHub();
  try {
    for (const [node, svc] of [
      ['n1', 'web'],
      ['n1', 'db'],
      ['n2', 'web'],
    ]) {
      assert.equal(
        (await as(hub, ROOT, 'PUT', '/v1/catalog/register', registerBody(node!, svc!, `${svc}-${node}`))).status,
        200,
      );
    }
    const t = await tokenWith(hub, 'service "web" { policy = "read" }\nnode "n1" { policy = "read" }');
    const health = await as(hub, t.secret, 'GET', '/v1/health/service/web');
    assert.deepEqual(
      health.json.map((c: { Node: { Node: string } }) => c.Node.Node),
      ['n1'],
    );
    assert.equal(health.headers['x-consul-results-filtered-by-acls'], 'true');
    const services = await as(hub, t.secret, 'GET', '/v1/catalog/services');
    assert.deepEqual(Object.keys(services.json), ['web']);
    assert.equal(services.headers['x-consul-results-filtered-by-acls'], 'true');
    const nodes = await as(hub, t.secret, 'GET', '/v1/catalog/nodes');
    assert.deepEqual(
      nodes.json.map((n: { Node: string }) => n.Node),
      ['n1'],
    );
    const node = await as(hub, t.secret, 'GET', '/v1/catalog/node/n1');
    assert.deepEqual(Object.keys(node.json.Services), ['web-n1']);
    assert.equal((await as(hub, t.secret, 'GET', '/v1/catalog/node/n2')).json, null);
    const catalogSvc = await as(hub, t.secret, 'GET', '/v1/catalog/service/web');
    assert.deepEqual(
      catalogSvc.json.map((s: { Node: string }) => s.Node),
      ['n1'],
    );
    // Everything readable: no header.
    const all = await as(hub, ROOT, 'GET', '/v1/health/service/web');
    assert.equal(all.json.length, 2);
    assert.equal(all.headers['x-consul-results-filtered-by-acls'], undefined);
    // The anonymous token (default deny) sees nothing and is not told why.
    const anon = await as(hub, undefined, 'GET', '/v1/health/service/web');
    assert.deepEqual(anon.json, []);
    assert.equal(anon.headers['x-consul-results-filtered-by-acls'], undefined);
    assert.equal(anon.headers['x-consul-default-acl-policy'], 'deny');
    // Rights needed by single-object reads are 403s.
    assert.match((await as(hub, t.secret, 'GET', '/v1/agent/self')).text, /lacks permission 'agent:read'/);
    assert.equal((await as(hub, t.secret, 'GET', '/metrics')).status, 403);
    assert.equal((await as(hub, undefined, 'GET', '/v1/status/leader')).status, 200);
  } finally {
    await hub.close();
  }
});

test('a blocking query held by a token that is deleted ends with 403, not an empty 200 (view read and catalog read)', async () => {
  const hub = await aclHub();
  try {
    assert.equal((await as(hub, ROOT, 'PUT', '/v1/catalog/register', registerBody('n1', 'web'))).status, 200);
    const t = await tokenWith(hub, 'service "web" { policy = "read" }\nnode_prefix "" { policy = "read" }');
    const first = await as(hub, t.secret, 'GET', '/v1/health/service/web');
    assert.equal(first.json.length, 1);
    const nodes = await as(hub, t.secret, 'GET', '/v1/catalog/nodes');
    const viewWait = as(hub, t.secret, 'GET', `/v1/health/service/web?index=${first.index}&wait=30s`);
    const tableWait = as(hub, t.secret, 'GET', `/v1/catalog/nodes?index=${nodes.index}&wait=30s`);
    await blockingQueriesWaiting(hub, 2); // both queries are parked on their waits
    assert.equal((await as(hub, ROOT, 'DELETE', `/v1/acl/token/${t.accessor}`)).status, 200);
    for (const answer of [await viewWait, await tableWait]) {
      assert.equal(answer.status, 403);
      assert.equal(answer.text, 'ACL not found');
    }
  } finally {
    await hub.close();
  }
});

test('a blocking query whose token loses its rights answers at once with what it may still read', async () => {
  const hub = await aclHub();
  try {
    assert.equal((await as(hub, ROOT, 'PUT', '/v1/catalog/register', registerBody('n1', 'web'))).status, 200);
    const t = await tokenWith(hub, 'service "web" { policy = "read" }\nnode_prefix "" { policy = "read" }');
    const first = await as(hub, t.secret, 'GET', '/v1/health/service/web');
    const wait = as(hub, t.secret, 'GET', `/v1/health/service/web?index=${first.index}&wait=30s`);
    await blockingQueriesWaiting(hub, 1);
    const narrowed = await as(hub, ROOT, 'PUT', `/v1/acl/policy/${t.policyId}`, {
      Name: (await as(hub, ROOT, 'GET', `/v1/acl/policy/${t.policyId}`)).json.Name,
      Rules: 'node_prefix "" { policy = "read" }',
    });
    assert.equal(narrowed.status, 200, narrowed.text);
    const answer = await wait;
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.json, []);
    assert.equal(answer.headers['x-consul-results-filtered-by-acls'], 'true');
  } finally {
    await hub.close();
  }
});

test('every registered route declares its ACL rule; with ACLs on, a route without one answers 403', async () => {
  const hub = await aclHub();
  try {
    const routes = routePolicies(hub.http);
    assert.ok(routes.length > 40, `saw ${routes.length} routes`);
    assert.deepEqual(
      routes.filter((p) => p.acl === undefined).map((p) => p.route),
      [],
      'routes with no ACL rule',
    );
    const dryRun = routes.filter((p) => p.dryRun).map((p) => p.route);
    assert.ok(
      dryRun.includes('PUT /v1/catalog/register') && dryRun.includes('PUT /v1/txn'),
      `dry-run routes: ${dryRun.join(', ')}`,
    );
    // A route registered without a rule fails closed, even for a management token.
    const app = Fastify();
    installErrorHandler(app);
    installAclGate(app, { resolver: hub.acl, certToken: false });
    app.get('/unruled', async () => 'served');
    app.get('/ruled', { config: { acl: 'public' } }, async () => 'served');
    const unruled = await app.inject({ method: 'GET', url: '/unruled', headers: { 'x-consul-token': ROOT } });
    assert.equal(unruled.statusCode, 403);
    assert.match(unruled.body, /GET \/unruled has no ACL rule/);
    assert.equal((await app.inject({ method: 'GET', url: '/ruled' })).body, 'served');
    await app.close();
  } finally {
    await hub.close();
  }
});
