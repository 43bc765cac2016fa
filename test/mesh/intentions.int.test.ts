// Intentions: Consul's precedence (exact beats wildcard, destination before
// source), the /v1/connect/intentions API over service-intentions entries
// (exact, match, check, list with ?filter, the legacy ID API), L7 permission
// checks, concurrent writes to one destination, the default intention (flag
// and mesh entry) and the agent's authorize endpoint.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { ConfigEntry } from '../../src/catalog/types';
import { allIntentions, checkConnection, destinationPolicy } from '../../src/connect/intentions';
import type { Hub } from '../../src/hub';
import { call, startHub } from '../helpers/hub';

let hub: Hub;

async function ok(method: string, url: string, body?: unknown) {
  const res = await call(hub, method, url, body);
  assert.equal(res.status, 200, `${method} ${url}: ${res.text}`);
  return res;
}

async function bad(method: string, url: string, body: unknown, re: RegExp, status = 400) {
  const res = await call(hub, method, url, body);
  assert.equal(res.status, status, `${method} ${url}: ${res.text}`);
  assert.match(res.text, re);
}

before(async () => {
  hub = await startHub({ nodeName: 'ixn-node' });
});
after(() => hub.close());

const entry = (Name: string, Sources: Record<string, unknown>[]): ConfigEntry => ({
  Kind: 'service-intentions',
  Name,
  Sources,
  CreateIndex: 1,
  ModifyIndex: 1,
});

test('precedence: exact destination beats *, then exact source beats *; what a destination enforces per source', () => {
  const all = allIntentions([
    entry('db', [
      { Name: 'web', Action: 'allow' },
      { Name: '*', Action: 'deny' },
    ]),
    entry('*', [
      { Name: 'api', Action: 'allow' },
      { Name: 'web', Action: 'deny' },
      { Name: '*', Action: 'allow' },
    ]),
  ]);
  assert.deepEqual(
    all.map((i) => [i.source, i.destination, i.precedence]),
    [
      ['web', 'db', 9],
      ['*', 'db', 8],
      ['api', '*', 6],
      ['web', '*', 6],
      ['*', '*', 5],
    ],
  );
  const allow = (s: string, d: string, def: 'allow' | 'deny' = 'deny') => checkConnection(all, s, d, def).allowed;
  assert.equal(allow('web', 'db'), true, 'web→db exact');
  assert.equal(allow('api', 'db'), false, '*→db (8) beats api→* (6)');
  assert.equal(allow('api', 'cache'), true, 'api→* (6)');
  assert.equal(allow('web', 'cache'), false, 'web→* (6) beats *→* (5)');
  assert.equal(allow('other', 'cache'), true, '*→* (5)');
  assert.equal(checkConnection(allIntentions([]), 'a', 'b', 'deny').allowed, false, 'no intention: the default');
  const db = destinationPolicy(all, 'db', 'deny');
  assert.deepEqual(
    [...db.named].map(([s, r]) => [s, r.kind]),
    [
      ['api', 'deny'],
      ['web', 'allow'],
    ],
  );
  assert.equal(db.others.kind, 'deny');
  const cache = destinationPolicy(all, 'cache', 'deny');
  assert.deepEqual(
    [...cache.named].map(([s, r]) => [s, r.kind]),
    [
      ['api', 'allow'],
      ['web', 'deny'],
    ],
  );
  assert.equal(cache.others.kind, 'allow');
});

test('exact: upsert, read, check, match, list with ?filter, delete (the entry goes with its last source)', async () => {
  await ok('PUT', '/v1/connect/intentions/exact?source=web&destination=db', {
    Action: 'allow',
    Description: 'web reads db',
  });
  const ixn = (await ok('GET', '/v1/connect/intentions/exact?source=web&destination=db')).json;
  assert.equal(ixn.SourceName, 'web');
  assert.equal(ixn.DestinationName, 'db');
  assert.equal(ixn.Action, 'allow');
  assert.equal(ixn.Precedence, 9);
  assert.equal(ixn.SourceType, 'consul');
  assert.equal(ixn.Description, 'web reads db');
  const stored = (await ok('GET', '/v1/config/service-intentions/db')).json;
  assert.deepEqual(stored.Sources, [
    { Name: 'web', Action: 'allow', Type: 'consul', Description: 'web reads db', Precedence: 9 },
  ]);
  await ok('PUT', '/v1/connect/intentions/exact?source=*&destination=db', { Action: 'deny' });
  assert.deepEqual((await ok('GET', '/v1/connect/intentions/check?source=web&destination=db')).json, { Allowed: true });
  assert.deepEqual((await ok('GET', '/v1/connect/intentions/check?source=api&destination=db')).json, {
    Allowed: false,
  });
  assert.deepEqual(
    (await ok('GET', '/v1/connect/intentions/check?source=api&destination=cache')).json,
    { Allowed: true },
    'default allow',
  );
  const match = (await ok('GET', '/v1/connect/intentions/match?by=destination&name=db&name=cache')).json;
  assert.deepEqual(
    match.db.map((i: any) => [i.SourceName, i.Precedence]),
    [
      ['web', 9],
      ['*', 8],
    ],
  );
  assert.deepEqual(match.cache, []);
  const bySource = (await ok('GET', '/v1/connect/intentions/match?by=source&name=web')).json;
  assert.deepEqual(
    bySource.web.map((i: any) => [i.SourceName, i.DestinationName]),
    [
      ['web', 'db'],
      ['*', 'db'],
    ],
  );
  const filtered = (await ok('GET', `/v1/connect/intentions?filter=${encodeURIComponent('Action == "deny"')}`)).json;
  assert.deepEqual(
    filtered.map((i: any) => i.SourceName),
    ['*'],
  );
  await bad('GET', `/v1/connect/intentions?filter=${encodeURIComponent('Nope == 1')}`, undefined, /Nope/);
  await ok('DELETE', '/v1/connect/intentions/exact?source=web&destination=db');
  await bad('GET', '/v1/connect/intentions/exact?source=web&destination=db', undefined, /Intention not found/, 404);
  await ok('DELETE', '/v1/connect/intentions/exact?source=*&destination=db');
  assert.equal((await call(hub, 'GET', '/v1/config/service-intentions/db')).status, 404, 'no sources left: no entry');
  await bad('PUT', '/v1/connect/intentions/exact?destination=db', { Action: 'allow' }, /source: is required/);
  await bad(
    'PUT',
    '/v1/connect/intentions/exact?source=web&destination=db',
    { Action: 'maybe' },
    /Action: must be one of/,
  );
  await bad(
    'PUT',
    '/v1/connect/intentions/exact?source=web&destination=db',
    { Action: 'allow', SourceName: 'api' },
    /SourceName: "api" does not match/,
  );
  await bad('GET', '/v1/connect/intentions/match?by=whom&name=db', undefined, /by: must be "source" or "destination"/);
});

test('intention writes: an empty or unknown body is a 400 naming the field and appends nothing', async () => {
  const before = hub.catalog.lastIndex();
  const exact = '/v1/connect/intentions/exact?source=web&destination=quiet';
  await bad('PUT', exact, undefined, /Action: is required/);
  await bad('PUT', exact, {}, /Action: is required/);
  await bad('PUT', exact, { Acton: 'deny' }, /Acton: not supported by this hub/);
  await bad('PUT', exact, { Action: 'deny', Bogus: 1 }, /Bogus: not supported by this hub/);
  await bad('PUT', exact, { Action: 'deny', SourceSamenessGroup: 'g' }, /SourceSamenessGroup: not supported/);
  await bad('POST', '/v1/connect/intentions', undefined, /SourceName: is required/);
  await bad('POST', '/v1/connect/intentions', { SourceName: 'web', DestinationName: 'quiet' }, /Action: is required/);
  await bad(
    'POST',
    '/v1/connect/intentions',
    { SourceName: 'web', DestinationName: 'quiet', Action: 'allow', Bogus: 1 },
    /Bogus: not supported by this hub/,
  );
  await bad('POST', '/v1/agent/connect/authorize', {}, /Target: is required/);
  await bad(
    'POST',
    '/v1/agent/connect/authorize',
    { Target: 'quiet', ClientCertURI: 'spiffe://x/ns/default/dc/dc1/svc/web', Bogus: 1 },
    /Bogus: not supported by this hub/,
  );
  await bad(
    'PUT',
    '/v1/connect/intentions/exact?source=team/web&destination=quiet',
    { Action: 'deny' },
    /source: only the "default" partition and namespace/,
  );
  await bad(
    'PUT',
    '/v1/connect/intentions/exact?source=a/b/c/web&destination=quiet',
    { Action: 'deny' },
    /source: not a service name/,
  );
  assert.equal(hub.catalog.lastIndex(), before, 'no refused body appended anything');
  // partition/namespace/name, as the Go client sends a name it read back.
  await ok('PUT', '/v1/connect/intentions/exact?source=default/default/web&destination=default/quiet', {
    Action: 'deny',
  });
  assert.equal((await ok('GET', '/v1/connect/intentions/exact?source=web&destination=quiet')).json.Action, 'deny');
  // Every field the Go client sends (read-only ones included) is taken.
  await ok('PUT', exact, {
    ID: '',
    SourceNS: 'default',
    SourceName: 'web',
    DestinationNS: 'default',
    DestinationName: 'quiet',
    SourceType: 'consul',
    Action: 'deny',
    Precedence: 0,
    CreatedAt: '0001-01-01T00:00:00Z',
    UpdatedAt: '0001-01-01T00:00:00Z',
    CreateIndex: 0,
    ModifyIndex: 0,
  });
  await ok('DELETE', exact);
});

test('L7 permissions: only for HTTP destinations; checked field by field; a connection check is not allowed by them', async () => {
  const perms = {
    Permissions: [
      { Action: 'allow', HTTP: { PathPrefix: '/public', Methods: ['GET'] } },
      { Action: 'deny', HTTP: { PathPrefix: '/admin' } },
    ],
  };
  await bad(
    'PUT',
    '/v1/connect/intentions/exact?source=web&destination=api',
    perms,
    /L7 permissions need service "api" to speak http, http2 or grpc \(its service-defaults Protocol is "tcp"\)/,
  );
  await bad(
    'PUT',
    '/v1/config',
    { Kind: 'service-intentions', Name: 'api', Sources: [{ Name: 'web', ...perms }] },
    /L7 permissions need service "api"/,
  );
  await ok('PUT', '/v1/config', { Kind: 'service-defaults', Name: 'api', Protocol: 'http' });
  await ok('PUT', '/v1/connect/intentions/exact?source=web&destination=api', perms);
  const ixn = (await ok('GET', '/v1/connect/intentions/exact?source=web&destination=api')).json;
  assert.equal(ixn.Action, undefined);
  assert.deepEqual(ixn.Permissions, perms.Permissions);
  assert.deepEqual((await ok('GET', '/v1/connect/intentions/check?source=web&destination=api')).json, {
    Allowed: false,
  });
  const put = (http: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    Kind: 'service-intentions',
    Name: 'api',
    Sources: [{ Name: 'web', Permissions: [{ Action: 'allow', HTTP: http, ...extra }] }],
  });
  await bad(
    'PUT',
    '/v1/config',
    put({ PathExact: '/a', PathPrefix: '/b' }),
    /Sources\[0\]\.Permissions\[0\]\.HTTP\.PathPrefix: at most one of PathExact, PathPrefix and PathRegex/,
  );
  await bad('PUT', '/v1/config', put({ PathPrefix: 'admin' }), /HTTP\.PathPrefix: must begin with "\/"/);
  await bad('PUT', '/v1/config', put({ Methods: ['GET', 'FETCH'] }), /HTTP\.Methods\[1\]: not an HTTP method: "FETCH"/);
  await bad(
    'PUT',
    '/v1/config',
    put({ Header: [{ Name: 'x', Exact: 'a', Prefix: 'b' }] }),
    /HTTP\.Header\[0\]\.Prefix: at most one of/,
  );
  await bad('PUT', '/v1/config', put({}), /Permissions\[0\]\.HTTP: at least one of PathExact/);
  await bad(
    'PUT',
    '/v1/config',
    put({ PathPrefix: '/a', Method: ['GET'] }),
    /Permissions\[0\]\.HTTP\.Method: not supported by this hub/,
  );
  await bad(
    'PUT',
    '/v1/config',
    put({ Header: [{ Name: 'x', Exactly: 'a' }] }),
    /HTTP\.Header\[0\]\.Exactly: not supported by this hub/,
  );
  await bad(
    'PUT',
    '/v1/config',
    { Kind: 'service-intentions', Name: 'api', Sources: [{ Name: 'web', Action: 'allow', Bogus: 1 }] },
    /Sources\[0\]\.Bogus: not supported by this hub/,
  );
  await bad(
    'PUT',
    '/v1/config',
    { Kind: 'service-intentions', Name: 'api', Sources: [{ Name: 'a/b', Action: 'allow' }] },
    /Sources\[0\]\.Name: "a\/b" cannot be in the mesh/,
  );
  await bad(
    'PUT',
    '/v1/config',
    { Kind: 'service-intentions', Name: 'a b', Sources: [{ Name: 'web', Action: 'allow' }] },
    /Name: "a b" cannot be in the mesh/,
  );
  await bad(
    'PUT',
    '/v1/config',
    put({ PathExact: '/a' }, { JWT: { Providers: [{ Name: 'okta' }] } }),
    /Permissions\[0\]\.JWT: not supported/,
  );
  await bad(
    'PUT',
    '/v1/config',
    { Kind: 'service-intentions', Name: 'api', Sources: [{ Name: 'web', Action: 'allow', Peer: 'east' }] },
    /Sources\[0\]\.Peer: not supported/,
  );
  await bad(
    'PUT',
    '/v1/config',
    { Kind: 'mesh', DefaultIntentionPolicy: 'maybe' },
    /DefaultIntentionPolicy: must be one of/,
  );
  await ok('DELETE', '/v1/connect/intentions/exact?source=web&destination=api');
});

test('the mesh entry refuses what sidecars would not act on, and appends nothing; zero values pass', async () => {
  const index = hub.catalog.lastIndex();
  await bad(
    'PUT',
    '/v1/config',
    { Kind: 'mesh', TransparentProxy: { MeshDestinationsOnly: true } },
    /TransparentProxy: not supported by this hub \(transparent proxying\)/,
  );
  await bad(
    'PUT',
    '/v1/config',
    { Kind: 'mesh', AllowEnablingPermissiveMutualTLS: true },
    /AllowEnablingPermissiveMutualTLS: not supported/,
  );
  await bad(
    'PUT',
    '/v1/config',
    { Kind: 'mesh', TLS: { Incoming: { TLSMinVersion: 'TLSv1_3' } } },
    /TLS: not supported/,
  );
  await bad('PUT', '/v1/config', { Kind: 'mesh', HTTP: { SanitizeXForwardedClientCert: true } }, /HTTP: not supported/);
  await bad(
    'PUT',
    '/v1/config',
    { Kind: 'mesh', Peering: { PeerThroughMeshGateways: true } },
    /Peering: not supported/,
  );
  assert.equal(hub.catalog.lastIndex(), index, 'nothing appended');
  // What Consul's Go client sends for an entry with only the default intention set.
  await ok('PUT', '/v1/config', {
    Kind: 'mesh',
    Name: 'mesh',
    TransparentProxy: { MeshDestinationsOnly: false },
    AllowEnablingPermissiveMutualTLS: false,
    TLS: null,
    HTTP: null,
    Peering: null,
    DefaultIntentionPolicy: 'allow',
  });
  await ok('DELETE', '/v1/config/mesh/mesh');
});

test('concurrent writes to one destination all land (compare-and-set, retried)', async () => {
  const sources = Array.from({ length: 8 }, (_, i) => `client-${i}`);
  await Promise.all(
    sources.map((s) => ok('PUT', `/v1/connect/intentions/exact?source=${s}&destination=busy`, { Action: 'allow' })),
  );
  const stored = (await ok('GET', '/v1/config/service-intentions/busy')).json;
  assert.deepEqual(stored.Sources.map((s: any) => s.Name).sort(), sources);
});

test('the legacy ID API: create, read, update, duplicate, delete', async () => {
  const { ID } = (
    await ok('POST', '/v1/connect/intentions', {
      SourceName: 'web',
      DestinationName: 'legacy',
      Action: 'deny',
      Meta: { owner: 'ops' },
    })
  ).json;
  assert.match(ID, /^[0-9a-f-]{36}$/);
  const got = (await ok('GET', `/v1/connect/intentions/${ID}`)).json;
  assert.equal(got.ID, ID);
  assert.equal(got.Action, 'deny');
  assert.deepEqual(got.Meta, { owner: 'ops' });
  assert.ok(got.CreatedAt);
  await bad(
    'POST',
    '/v1/connect/intentions',
    { SourceName: 'web', DestinationName: 'legacy', Action: 'allow' },
    /duplicate intention found: web => legacy/,
  );
  await ok('PUT', `/v1/connect/intentions/${ID}`, { SourceName: 'web', DestinationName: 'legacy', Action: 'allow' });
  assert.equal((await ok('GET', '/v1/connect/intentions/exact?source=web&destination=legacy')).json.Action, 'allow');
  await bad(
    'PUT',
    `/v1/connect/intentions/${ID}`,
    { SourceName: 'api', Action: 'allow' },
    /SourceName: moving an intention/,
  );
  await ok('DELETE', `/v1/connect/intentions/${ID}`);
  await bad('GET', `/v1/connect/intentions/${ID}`, undefined, /Intention not found/, 404);
});

test('the default intention: --default-intention, overridden by the mesh entry; the agent authorize endpoint follows it', async () => {
  const deny = await startHub({ nodeName: 'deny-node', defaultIntention: 'deny' });
  try {
    const ask = async (u: string) => (await call(deny, 'GET', u)).json;
    assert.deepEqual(await ask('/v1/connect/intentions/check?source=a&destination=b'), { Allowed: false });
    const td = (await call(deny, 'GET', '/v1/connect/ca/roots')).json.TrustDomain;
    const authorize = async (uri: string) =>
      (await call(deny, 'POST', '/v1/agent/connect/authorize', { Target: 'b', ClientCertURI: uri })).json;
    const a = await authorize(`spiffe://${td}/ns/default/dc/dc1/svc/a`);
    assert.deepEqual(a, { Authorized: false, Reason: 'Default intention policy' });
    assert.equal(
      (await call(deny, 'PUT', '/v1/config', { Kind: 'mesh', DefaultIntentionPolicy: 'allow' })).status,
      200,
    );
    assert.deepEqual(await ask('/v1/connect/intentions/check?source=a&destination=b'), { Allowed: true });
    assert.equal((await authorize(`spiffe://${td}/ns/default/dc/dc1/svc/a`)).Authorized, true);
    assert.equal(
      (await call(deny, 'PUT', '/v1/connect/intentions/exact?source=a&destination=b', { Action: 'deny' })).status,
      200,
    );
    assert.deepEqual(await authorize(`spiffe://${td}/ns/default/dc/dc1/svc/a`), {
      Authorized: false,
      Reason: 'Matched L4 intention: a => b (9)',
    });
    assert.deepEqual(await authorize('spiffe://other.consul/ns/default/dc/dc1/svc/a'), {
      Authorized: false,
      Reason: 'Client certificate is not from this trust domain',
    });
  } finally {
    await deny.close();
  }
});
