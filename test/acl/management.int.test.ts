// /v1/acl/*: bootstrap once, the initial management token, tokens and policies
// in Consul's shapes, secrets shown only at creation (stored hashed), and the
// rights each call needs.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sha256Hex } from '../../src/acl/secrets';
import { MANAGEMENT_POLICY_ID } from '../../src/acl/types';
import { call, startHub } from '../helpers/hub';
import { letTimePass } from '../helpers/until';
import { aclHub, as, ROOT, tokenWith } from './helpers';

test('with ACLs off every /v1/acl endpoint answers 401 "ACL support disabled"', async () => {
  const hub = await startHub();
  try {
    for (const [m, u] of [
      ['PUT', '/v1/acl/bootstrap'],
      ['GET', '/v1/acl/tokens'],
      ['GET', '/v1/acl/token/self'],
      ['PUT', '/v1/acl/policy'],
    ] as const) {
      const r = await call(hub, m, u, m === 'PUT' ? {} : undefined);
      assert.equal(r.status, 401, u);
      assert.equal(r.text, 'ACL support disabled');
    }
  } finally {
    await hub.close();
  }
});

test('bootstrap works once and returns a management token; the second call is 403 with the reset index', async () => {
  const hub = await startHub({ aclEnabled: true, aclDefaultPolicy: 'deny' });
  try {
    const first = await as(hub, undefined, 'PUT', '/v1/acl/bootstrap');
    assert.equal(first.status, 200, first.text);
    assert.match(first.json.SecretID, /^[0-9a-f-]{36}$/);
    assert.equal(first.json.ID, first.json.SecretID);
    assert.deepEqual(first.json.Policies, [{ ID: MANAGEMENT_POLICY_ID, Name: 'global-management' }]);
    const again = await as(hub, undefined, 'PUT', '/v1/acl/bootstrap');
    assert.equal(again.status, 403);
    assert.equal(again.text, `Permission denied: ACL bootstrap no longer allowed (reset index: ${first.index})`);
    // The bootstrap token manages ACLs; the secret is nowhere in the log's state, only its hash.
    assert.equal((await as(hub, first.json.SecretID, 'GET', '/v1/acl/tokens')).status, 200);
    const state = hub.catalog.snapshot().state;
    assert.equal(state.includes(first.json.SecretID), false);
    assert.equal(state.includes(sha256Hex(first.json.SecretID)), true);
  } finally {
    await hub.close();
  }
});

test('the initial management token exists after start, survives a restart and is written once', async () => {
  const { mkdtempSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const dir = mkdtempSync(join(tmpdir(), 'acl-initial-'));
  const first = await aclHub({ store: { kind: 'sqlite' }, dataDir: dir });
  const index = first.catalog.lastIndex();
  assert.equal((await as(first, ROOT, 'GET', '/v1/acl/token/self')).json.Description, 'Initial Management Token');
  // It took the bootstrap's place.
  assert.equal((await as(first, undefined, 'PUT', '/v1/acl/bootstrap')).status, 403);
  await first.close();
  const second = await aclHub({ store: { kind: 'sqlite' }, dataDir: dir });
  try {
    assert.equal(second.catalog.lastIndex(), index, 'no second write on restart');
    const self = await as(second, ROOT, 'GET', '/v1/acl/token/self');
    assert.equal(self.status, 200);
    assert.equal(self.json.SecretID, ROOT, 'self echoes the presented secret');
  } finally {
    await second.close();
  }
});

test('tokens: create, read (secret hidden), update, clone, list, delete; policies by ID and by name', async () => {
  const hub = await aclHub();
  try {
    const policy = await as(hub, ROOT, 'PUT', '/v1/acl/policy', {
      Name: 'web-read',
      Description: 'd',
      Rules: 'service "web" { policy = "read" }',
    });
    assert.equal(policy.status, 200, policy.text);
    assert.deepEqual(Object.keys(policy.json).sort(), [
      'CreateIndex',
      'Datacenters',
      'Description',
      'Hash',
      'ID',
      'ModifyIndex',
      'Name',
      'Rules',
    ]);
    assert.equal((await as(hub, ROOT, 'GET', '/v1/acl/policy/name/web-read')).json.ID, policy.json.ID);
    const dup = await as(hub, ROOT, 'PUT', '/v1/acl/policy', { Name: 'web-read', Rules: '' });
    assert.equal(dup.status, 409);
    assert.match(dup.text, /A Policy with Name "web-read" already exists/);
    const bad = await as(hub, ROOT, 'PUT', '/v1/acl/policy', {
      Name: 'bad',
      Rules: 'service "web" { policy = "reed" }',
    });
    assert.equal(bad.status, 400);
    assert.match(bad.text, /^Rules: Invalid service "web" policy/);

    const created = await as(hub, ROOT, 'PUT', '/v1/acl/token', {
      Description: 'web reader',
      Policies: [{ Name: 'web-read' }],
      ExpirationTTL: '1h',
    });
    assert.equal(created.status, 200, created.text);
    const { AccessorID, SecretID } = created.json;
    assert.match(SecretID, /^[0-9a-f-]{36}$/);
    assert.deepEqual(created.json.Policies, [{ ID: policy.json.ID, Name: 'web-read' }]);
    assert.ok(Date.parse(created.json.ExpirationTime) > Date.now());

    const read = await as(hub, ROOT, 'GET', `/v1/acl/token/${AccessorID}`);
    assert.equal(read.json.SecretID, '<hidden>', 'the hub keeps only the hash: a read cannot show the secret');
    assert.equal(read.json.Description, 'web reader');
    const self = await as(hub, SecretID, 'GET', '/v1/acl/token/self');
    assert.equal(self.json.AccessorID, AccessorID);
    assert.equal(self.json.SecretID, SecretID);

    const updated = await as(hub, ROOT, 'PUT', `/v1/acl/token/${AccessorID}`, { Description: 'renamed', Policies: [] });
    assert.equal(updated.status, 200, updated.text);
    assert.deepEqual(updated.json.Policies, []);
    const change = await as(hub, ROOT, 'PUT', `/v1/acl/token/${AccessorID}`, {
      SecretID: '99999999-2222-4333-8444-555555555555',
    });
    assert.equal(change.status, 400);
    assert.match(change.text, /Changing a token's SecretID is not permitted/);

    const clone = await as(hub, ROOT, 'PUT', `/v1/acl/token/${AccessorID}/clone`, { Description: 'copy' });
    assert.equal(clone.status, 200);
    assert.notEqual(clone.json.SecretID, SecretID);

    const list = await as(hub, ROOT, 'GET', '/v1/acl/tokens');
    assert.deepEqual(
      new Set(list.json.map((t: { Description: string }) => t.Description)),
      new Set(['Anonymous Token', 'Initial Management Token', 'renamed', 'copy']),
    );
    assert.ok(list.json.every((t: { SecretID: string }) => t.SecretID === '<hidden>' || t.SecretID === 'anonymous'));

    assert.equal((await as(hub, ROOT, 'DELETE', `/v1/acl/token/${AccessorID}`)).json, true);
    const gone = await as(hub, ROOT, 'GET', `/v1/acl/token/${AccessorID}`);
    assert.equal(gone.status, 403);
    assert.equal(gone.text, 'ACL not found');
    assert.equal((await as(hub, SecretID, 'GET', '/v1/acl/token/self')).status, 403);

    assert.equal((await as(hub, ROOT, 'DELETE', `/v1/acl/policy/${MANAGEMENT_POLICY_ID}`)).status, 400);
    assert.equal((await as(hub, ROOT, 'DELETE', `/v1/acl/policy/${policy.json.ID}`)).json, true);
    assert.equal((await as(hub, ROOT, 'GET', '/v1/acl/policies')).json.length, 1);
    const unsupported = await as(hub, ROOT, 'PUT', '/v1/acl/token', { Roles: [{ Name: 'r' }] });
    assert.equal(unsupported.status, 400);
    assert.match(unsupported.text, /^Roles: is not supported/);
  } finally {
    await hub.close();
  }
});

test('management needs acl rights: acl:read reads, acl:write writes, and unknown tokens are "ACL not found"', async () => {
  const hub = await aclHub();
  try {
    const reader = await tokenWith(hub, 'acl = "read"');
    assert.equal((await as(hub, reader.secret, 'GET', '/v1/acl/tokens')).status, 200);
    const denied = await as(hub, reader.secret, 'PUT', '/v1/acl/token', {});
    assert.equal(denied.status, 403);
    assert.equal(
      denied.text,
      `Permission denied: token with AccessorID '${reader.accessor}' lacks permission 'acl:write'`,
    );
    const anon = await as(hub, undefined, 'GET', '/v1/acl/tokens');
    assert.equal(anon.status, 403);
    assert.equal(
      anon.text,
      "Permission denied: anonymous token lacks permission 'acl:read'. The anonymous token is used implicitly when a request does not specify a token.",
    );
    const unknown = await as(hub, '00000000-0000-4000-8000-000000000000', 'GET', '/v1/catalog/nodes');
    assert.equal(unknown.status, 403);
    assert.equal(unknown.text, 'ACL not found');
    // Bearer and ?token= carry tokens too.
    assert.equal(
      (await as(hub, undefined, 'GET', '/v1/acl/tokens', undefined, { authorization: `Bearer ${reader.secret}` }))
        .status,
      200,
    );
    assert.equal((await as(hub, undefined, 'GET', `/v1/acl/tokens?token=${reader.secret}`)).status, 200);
    const self = await as(
      hub,
      ROOT,
      'DELETE',
      `/v1/acl/token/${(await as(hub, ROOT, 'GET', '/v1/acl/token/self')).json.AccessorID}`,
    );
    assert.equal(self.status, 400);
    assert.match(self.text, /Deletion of the request's authorization token is not permitted/);
  } finally {
    await hub.close();
  }
});

test('an expired token is "ACL not found"', async () => {
  const hub = await aclHub();
  try {
    const t = await tokenWith(hub, 'node_prefix "" { policy = "read" }', {
      ExpirationTime: new Date(Date.now() + 400).toISOString(),
    });
    assert.equal((await as(hub, t.secret, 'GET', '/v1/catalog/nodes')).status, 200);
    await letTimePass(450, 'the token expires 400 ms after it was made');
    const after = await as(hub, t.secret, 'GET', '/v1/catalog/nodes');
    assert.equal(after.status, 403);
    assert.equal(after.text, 'ACL not found');
  } finally {
    await hub.close();
  }
});
