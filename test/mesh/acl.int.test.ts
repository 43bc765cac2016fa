// The mesh endpoints under ACLs (default deny), as Consul governs them: the
// trust bundle is public; a leaf (its private key is in the answer) needs
// service:write on its service; intentions need intention:read/write on their
// destination (lists are filtered); the CA configuration is operator:read/write.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Hub } from '../../src/hub';
import { aclHub, as, ROOT, tokenWith } from '../acl/helpers';

let hub: Hub;
before(async () => {
  hub = await aclHub({ nodeName: 'mesh-acl' });
});
after(() => hub?.close());

test('roots are public; a leaf needs service:write on its service; the CA configuration needs operator rights', async () => {
  assert.equal((await as(hub, undefined, 'GET', '/v1/connect/ca/roots')).status, 200);
  assert.equal((await as(hub, undefined, 'GET', '/v1/agent/connect/ca/roots')).status, 200);
  const web = await tokenWith(hub, 'service "web" { policy = "write" }');
  const reader = await tokenWith(hub, 'service "web" { policy = "read" }');
  assert.equal((await as(hub, web.secret, 'GET', '/v1/agent/connect/ca/leaf/web')).status, 200);
  assert.equal((await as(hub, web.secret, 'GET', '/v1/agent/connect/ca/leaf/db')).status, 403, 'another service');
  assert.equal(
    (await as(hub, reader.secret, 'GET', '/v1/agent/connect/ca/leaf/web')).status,
    403,
    'read is not enough',
  );
  assert.equal((await as(hub, undefined, 'GET', '/v1/agent/connect/ca/leaf/web')).status, 403);
  assert.equal((await as(hub, web.secret, 'GET', '/v1/connect/ca/configuration')).status, 403);
  const op = await tokenWith(hub, 'operator = "read"');
  assert.equal((await as(hub, op.secret, 'GET', '/v1/connect/ca/configuration')).status, 200);
  assert.equal(
    (
      await as(hub, op.secret, 'PUT', '/v1/connect/ca/configuration', {
        Provider: 'consul',
        Config: { LeafCertTTL: '24h' },
      })
    ).status,
    403,
  );
  assert.equal(
    (await as(hub, ROOT, 'PUT', '/v1/connect/ca/configuration', { Provider: 'consul', Config: { LeafCertTTL: '24h' } }))
      .status,
    200,
  );
});

test('intentions: intention:write on the destination to write, intention:read to read; lists keep what the token may read', async () => {
  const dbWriter = await tokenWith(hub, 'service "db" {\n policy = "read"\n intentions = "write"\n}');
  const dbReader = await tokenWith(hub, 'service "db" {\n policy = "read"\n intentions = "read"\n}');
  assert.equal(
    (
      await as(hub, dbWriter.secret, 'PUT', '/v1/connect/intentions/exact?source=web&destination=db', {
        Action: 'allow',
      })
    ).status,
    200,
  );
  assert.equal(
    (
      await as(hub, dbWriter.secret, 'PUT', '/v1/connect/intentions/exact?source=web&destination=cache', {
        Action: 'allow',
      })
    ).status,
    403,
  );
  assert.equal(
    (
      await as(hub, dbReader.secret, 'PUT', '/v1/connect/intentions/exact?source=api&destination=db', {
        Action: 'deny',
      })
    ).status,
    403,
  );
  assert.equal(
    (await as(hub, ROOT, 'PUT', '/v1/connect/intentions/exact?source=web&destination=cache', { Action: 'deny' }))
      .status,
    200,
  );
  assert.equal(
    (await as(hub, dbReader.secret, 'GET', '/v1/connect/intentions/exact?source=web&destination=db')).status,
    200,
  );
  assert.equal(
    (await as(hub, dbReader.secret, 'GET', '/v1/connect/intentions/exact?source=web&destination=cache')).status,
    403,
  );
  const list = await as(hub, dbReader.secret, 'GET', '/v1/connect/intentions');
  assert.deepEqual(
    list.json.map((i: any) => i.DestinationName),
    ['db'],
  );
  assert.equal(list.headers['x-consul-results-filtered-by-acls'], 'true');
  assert.equal((await as(hub, ROOT, 'GET', '/v1/connect/intentions')).json.length, 2);
  assert.equal(
    (await as(hub, dbReader.secret, 'GET', '/v1/connect/intentions/check?source=web&destination=db')).status,
    200,
  );
  assert.equal(
    (
      await as(hub, undefined, 'POST', '/v1/agent/connect/authorize', {
        Target: 'db',
        ClientCertURI: 'spiffe://x/ns/default/dc/dc1/svc/web',
      })
    ).status,
    403,
  );
});
