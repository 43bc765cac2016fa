// Subscribe under ACLs, through a real gRPC client: an unknown token is
// PERMISSION_DENIED, a named subject the token may not read is PERMISSION_DENIED
// (never an empty success), wildcard streams are filtered per event, and when a
// token's rights change or it is deleted its open stream ends with ABORTED and
// its next Subscribe is checked again.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { status } from '@grpc/grpc-js';
import { describe, StreamReader, subscribeClient } from '../subscribe/grpc-helpers';
import { aclHub, as, ROOT, registerBody, tokenWith } from './helpers';

test('Subscribe checks the token: unknown → PERMISSION_DENIED; unreadable named subject → PERMISSION_DENIED', async () => {
  const hub = await aclHub();
  const client = subscribeClient(`127.0.0.1:${hub.grpcPort}`);
  try {
    await as(hub, ROOT, 'PUT', '/v1/catalog/register', registerBody('n1', 'web'));
    const unknown = await new StreamReader(
      client.Subscribe({ Topic: 'ServiceHealth', NamedSubject: { Key: 'web' }, Token: 'nope' }),
    ).status;
    assert.equal(unknown.code, status.PERMISSION_DENIED);
    assert.equal(unknown.details, 'ACL not found');
    const t = await tokenWith(hub, 'service "db" { policy = "read" }');
    const denied = await new StreamReader(
      client.Subscribe({ Topic: 'ServiceHealth', NamedSubject: { Key: 'web' }, Token: t.secret }),
    ).status;
    assert.equal(denied.code, status.PERMISSION_DENIED);
    assert.equal(
      denied.details,
      `Permission denied: token with AccessorID '${t.accessor}' lacks permission 'service:read' on "web"`,
    );
    const anon = await new StreamReader(client.Subscribe({ Topic: 'ServiceDefaults', NamedSubject: { Key: 'web' } }))
      .status;
    assert.equal(anon.code, status.PERMISSION_DENIED);
  } finally {
    client.close();
    await hub.close();
  }
});

test('a wildcard stream carries only what the token may read, snapshot and live', async () => {
  const hub = await aclHub();
  const client = subscribeClient(`127.0.0.1:${hub.grpcPort}`);
  try {
    await as(hub, ROOT, 'PUT', '/v1/catalog/register', registerBody('n1', 'web'));
    await as(hub, ROOT, 'PUT', '/v1/catalog/register', registerBody('n1', 'secret'));
    const t = await tokenWith(hub, 'service_prefix "w" { policy = "read" }');
    const s = new StreamReader(client.Subscribe({ Topic: 'ServiceList', WildcardSubject: true, Token: t.secret }));
    await as(hub, ROOT, 'PUT', '/v1/catalog/register', registerBody('n1', 'secret2'));
    const last = await as(hub, ROOT, 'PUT', '/v1/catalog/register', registerBody('n1', 'www'));
    // A cached snapshot may come first with the later changes spliced after it: read up to the last write.
    const seen: string[] = [];
    while (!seen.includes(`${last.index}:register-www`)) seen.push(describe(await s.next()));
    assert.ok(
      seen.some((e) => e.endsWith(':register-web')),
      seen.join(' '),
    );
    assert.ok(
      seen.some((e) => e.startsWith('eos@')),
      seen.join(' '),
    );
    assert.deepEqual(
      seen.filter((e) => e.includes('secret')),
      [],
      'nothing the token may not read',
    );
    s.call.cancel();
  } finally {
    client.close();
    await hub.close();
  }
});

test('deleting a token ends its open stream with ABORTED; its next Subscribe is PERMISSION_DENIED, never an empty success', async () => {
  const hub = await aclHub();
  const client = subscribeClient(`127.0.0.1:${hub.grpcPort}`);
  try {
    await as(hub, ROOT, 'PUT', '/v1/catalog/register', registerBody('n1', 'web'));
    const t = await tokenWith(hub, 'service "web" { policy = "read" }\nnode_prefix "" { policy = "read" }');
    const req = { Topic: 'ServiceHealth' as const, NamedSubject: { Key: 'web' }, Token: t.secret };
    const s = new StreamReader(client.Subscribe(req));
    assert.match(describe((await s.take(2))[1]!), /^eos@/);
    assert.equal((await as(hub, ROOT, 'DELETE', `/v1/acl/token/${t.accessor}`)).status, 200);
    const ended = await s.status;
    assert.equal(ended.code, status.ABORTED);
    assert.equal(ended.details, 'subscription closed by server, client must reset state and resubscribe');
    const again = await new StreamReader(client.Subscribe(req)).status;
    assert.equal(again.code, status.PERMISSION_DENIED);
    assert.equal(again.details, 'ACL not found');
  } finally {
    client.close();
    await hub.close();
  }
});

test("changing a token's policy ends its stream with ABORTED; resubscribing sees the new rights", async () => {
  const hub = await aclHub();
  const client = subscribeClient(`127.0.0.1:${hub.grpcPort}`);
  try {
    await as(hub, ROOT, 'PUT', '/v1/catalog/register', registerBody('n1', 'web'));
    const t = await tokenWith(hub, 'service "web" { policy = "read" }\nnode_prefix "" { policy = "read" }');
    const other = await new StreamReader(
      client.Subscribe({ Topic: 'ServiceHealth', NamedSubject: { Key: 'web' }, Token: ROOT }),
    );
    await other.take(2);
    const s = new StreamReader(
      client.Subscribe({ Topic: 'ServiceHealth', NamedSubject: { Key: 'web' }, Token: t.secret }),
    );
    await s.take(2);
    const policy = (await as(hub, ROOT, 'GET', `/v1/acl/policy/${t.policyId}`)).json;
    assert.equal(
      (
        await as(hub, ROOT, 'PUT', `/v1/acl/policy/${t.policyId}`, {
          Name: policy.Name,
          Rules: 'service "db" { policy = "read" }',
        })
      ).status,
      200,
    );
    assert.equal((await s.status).code, status.ABORTED);
    const denied = await new StreamReader(
      client.Subscribe({ Topic: 'ServiceHealth', NamedSubject: { Key: 'web' }, Token: t.secret }),
    ).status;
    assert.equal(denied.code, status.PERMISSION_DENIED);
    assert.match(denied.details, /lacks permission 'service:read' on "web"/);
    // Streams of other tokens are untouched.
    const live = await as(hub, ROOT, 'PUT', '/v1/catalog/register', registerBody('n2', 'web'));
    assert.equal(describe(await other.next()), `${live.index}:register-web`);
    other.call.cancel();
  } finally {
    client.close();
    await hub.close();
  }
});
