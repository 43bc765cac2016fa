// /v1/config: set, read, list, delete, CAS answers, per-kind validation and unknown kinds.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Hub } from '../../src/hub';
import { call, startHub } from '../helpers/hub';

let hub: Hub;
before(async () => {
  hub = await startHub();
});
after(() => hub.close());

test('set answers true; get returns the entry with indexes; list by kind', async () => {
  const res = await call(hub, 'PUT', '/v1/config', { Kind: 'service-defaults', Name: 'web', Protocol: 'http' });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json, true);
  const entry = await call(hub, 'GET', '/v1/config/service-defaults/web');
  assert.equal(entry.json.Protocol, 'http');
  assert.equal(entry.json.Kind, 'service-defaults');
  assert.equal(typeof entry.json.ModifyIndex, 'number');
  await call(hub, 'PUT', '/v1/config', { Kind: 'service-defaults', Name: 'api', Protocol: 'grpc' });
  const list = await call(hub, 'GET', '/v1/config/service-defaults');
  assert.deepEqual(
    list.json.map((e: any) => e.Name),
    ['api', 'web'],
  );
  const mesh = await call(hub, 'PUT', '/v1/config', {
    Kind: 'mesh',
    DefaultIntentionPolicy: 'allow',
    Meta: { team: 'net' },
  });
  assert.equal(mesh.status, 200, mesh.text);
  const got = (await call(hub, 'GET', '/v1/config/mesh/mesh')).json;
  assert.equal(got.Name, 'mesh', 'the singleton gets its name');
  assert.deepEqual([got.DefaultIntentionPolicy, got.Meta], ['allow', { team: 'net' }]);
});

test('missing entry: 404 in Consul words; unknown kind: 400 in Consul words', async () => {
  const missing = await call(hub, 'GET', '/v1/config/service-defaults/nope');
  assert.equal(missing.status, 404);
  assert.equal(missing.text, 'Config entry not found for "service-defaults" / "nope"');
  for (const [method, url, body] of [
    ['PUT', '/v1/config', { Kind: 'no-such-kind', Name: 'x' }],
    ['GET', '/v1/config/no-such-kind', undefined],
    ['GET', '/v1/config/no-such-kind/x', undefined],
    ['DELETE', '/v1/config/no-such-kind/x', undefined],
  ] as const) {
    const res = await call(hub, method, url, body);
    assert.equal(res.status, 400, url);
    // Consul's words; its PUT adds the decoding prefix.
    assert.equal(
      res.text,
      `${method === 'PUT' ? 'Request decoding failed: ' : ''}invalid config entry kind: no-such-kind`,
    );
  }
});

test('a Consul kind the hub does not serve: 400 saying so on every endpoint, nothing appended', async () => {
  const before = hub.catalog.lastIndex();
  for (const kind of ['exported-services', 'sameness-group', 'api-gateway', 'bound-api-gateway', 'tcp-route']) {
    for (const [method, url, body] of [
      ['PUT', '/v1/config', { Kind: kind, Name: 'x' }],
      ['GET', `/v1/config/${kind}`, undefined],
      ['GET', `/v1/config/${kind}/x`, undefined],
      ['DELETE', `/v1/config/${kind}/x`, undefined],
    ] as const) {
      const res = await call(hub, method, url, body);
      assert.equal(res.status, 400, `${method} ${url}`);
      assert.match(res.text, new RegExp(`config entry kind "${kind}" is not supported by this hub \\(it serves `));
    }
  }
  assert.equal(hub.catalog.lastIndex(), before);
});

test('CAS: set with ?cas answers false on mismatch and true on match; 0 means create-only', async () => {
  const current = (await call(hub, 'GET', '/v1/config/service-defaults/web')).json;
  const before = hub.catalog.lastIndex();
  const stale = await call(hub, 'PUT', `/v1/config?cas=${current.ModifyIndex + 1000}`, {
    Kind: 'service-defaults',
    Name: 'web',
    Protocol: 'tcp',
  });
  assert.equal(stale.status, 200);
  assert.equal(stale.json, false);
  assert.equal((await call(hub, 'GET', '/v1/config/service-defaults/web')).json.Protocol, 'http');
  assert.ok(hub.catalog.lastIndex() >= before);
  const ok = await call(hub, 'PUT', `/v1/config?cas=${current.ModifyIndex}`, {
    Kind: 'service-defaults',
    Name: 'web',
    Protocol: 'tcp',
  });
  assert.equal(ok.json, true);
  assert.equal((await call(hub, 'GET', '/v1/config/service-defaults/web')).json.Protocol, 'tcp');
  assert.equal((await call(hub, 'PUT', '/v1/config?cas=0', { Kind: 'service-defaults', Name: 'web' })).json, false);
  assert.equal((await call(hub, 'PUT', '/v1/config?cas=0', { Kind: 'service-defaults', Name: 'fresh' })).json, true);
  const badCas = await call(hub, 'PUT', '/v1/config?cas=x', { Kind: 'service-defaults', Name: 'web' });
  assert.equal(badCas.status, 400);
  assert.match(badCas.text, /^cas: /);
});

test('delete: plain answers {}; with ?cas answers true/false', async () => {
  const plain = await call(hub, 'DELETE', '/v1/config/service-defaults/fresh');
  assert.equal(plain.status, 200);
  assert.deepEqual(plain.json, {});
  assert.equal((await call(hub, 'GET', '/v1/config/service-defaults/fresh')).status, 404);
  const api = (await call(hub, 'GET', '/v1/config/service-defaults/api')).json;
  const stale = await call(hub, 'DELETE', `/v1/config/service-defaults/api?cas=${api.ModifyIndex + 1}`);
  assert.equal(stale.json, false);
  assert.equal((await call(hub, 'GET', '/v1/config/service-defaults/api')).status, 200);
  const ok = await call(hub, 'DELETE', `/v1/config/service-defaults/api?cas=${api.ModifyIndex}`);
  assert.equal(ok.json, true);
  assert.equal((await call(hub, 'GET', '/v1/config/service-defaults/api')).status, 404);
});

test('every kind validated: 400 naming the field, nothing stored', async () => {
  const before = hub.catalog.lastIndex();
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ Kind: 'service-defaults', Name: 'w', Protocol: 'udp' }, /^Protocol: must be one of/],
    [{ Kind: 'service-defaults' }, /^Name: is required/],
    [
      { Kind: 'service-resolver', Name: 'w', LoadBalancer: { Policy: 'fastest' } },
      /^LoadBalancer.Policy: must be one of/,
    ],
    [
      { Kind: 'service-resolver', Name: 'w', Subsets: { v1: { OnlyPassing: 'yes' } } },
      /^Subsets.v1.OnlyPassing: must be a boolean/,
    ],
    [
      { Kind: 'ingress-gateway', Name: 'ig', Listeners: [{ Port: 8080, Protocol: 'smtp', Services: [{ Name: 'a' }] }] },
      /^Listeners\[0\].Protocol/,
    ],
    [
      { Kind: 'ingress-gateway', Name: 'ig', Listeners: [{ Port: 8080, Services: [{ Name: 'a' }, { Name: 'b' }] }] },
      /^Listeners\[0\].Services: a tcp listener/,
    ],
    [{ Kind: 'http-route', Name: 'r', Rules: [] }, /^Parents: needs at least one parent/],
    [
      { Kind: 'http-route', Name: 'r', Parents: [{ Name: 'gw' }], Rules: [{ Services: [{ Weight: 2 }] }] },
      /^Rules\[0\].Services\[0\].Name: is required/,
    ],
    [{ Kind: 'mesh', Name: 'not-mesh' }, /^Name: a mesh entry is a singleton/],
    [
      { Kind: 'service-intentions', Name: 'db', Sources: [{ Name: 'web', Action: 'permit' }] },
      /^Sources\[0\].Action: must be one of/,
    ],
    [{ Name: 'x' }, /^Kind: is required/],
  ];
  for (const [body, pattern] of cases) {
    const res = await call(hub, 'PUT', '/v1/config', body);
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.match(res.text, pattern);
  }
  assert.equal(hub.catalog.lastIndex(), before);
  assert.equal((await call(hub, 'GET', '/v1/config/service-defaults/w')).status, 404);
});

test('valid entries of every kind are stored as sent', async () => {
  const entries = [
    {
      Kind: 'service-resolver',
      Name: 'web',
      DefaultSubset: 'v1',
      Subsets: { v1: { Filter: 'Service.Meta.version == 1' } },
      ConnectTimeout: '5s',
      LoadBalancer: { Policy: 'least_request', LeastRequestConfig: { ChoiceCount: 3 } },
    },
    {
      Kind: 'ingress-gateway',
      Name: 'ig',
      Listeners: [{ Port: 8080, Protocol: 'http', Services: [{ Name: 'web', Hosts: ['web.example.com'] }] }],
    },
    {
      Kind: 'http-route',
      Name: 'route',
      Parents: [{ Kind: 'api-gateway', Name: 'gw' }],
      Rules: [{ Matches: [{ Path: { Match: 'prefix', Value: '/v1' } }], Services: [{ Name: 'web', Weight: 1 }] }],
    },
  ];
  for (const entry of entries) {
    const res = await call(hub, 'PUT', '/v1/config', entry);
    assert.equal(res.status, 200, res.text);
    const back = (await call(hub, 'GET', `/v1/config/${entry.Kind}/${entry.Name}`)).json;
    const { CreateIndex, ModifyIndex, ...rest } = back;
    assert.ok(CreateIndex > 0 && ModifyIndex >= CreateIndex);
    assert.deepEqual(rest, entry);
  }
});

test('service-intentions sources are stored as Consul normalises them: Type defaults to consul, Precedence computed', async () => {
  const entries = [
    {
      Kind: 'service-intentions',
      Name: 'web',
      Sources: [
        { Name: 'api', Action: 'allow', Precedence: 1 },
        { Name: '*', Action: 'deny', Type: 'consul' },
      ],
    },
    {
      Kind: 'service-intentions',
      Name: '*',
      Sources: [
        { Name: 'api', Action: 'allow' },
        { Name: '*', Action: 'deny' },
      ],
    },
  ];
  const expected = [
    [
      { Name: 'api', Action: 'allow', Precedence: 9, Type: 'consul' },
      { Name: '*', Action: 'deny', Precedence: 8, Type: 'consul' },
    ],
    [
      { Name: 'api', Action: 'allow', Precedence: 6, Type: 'consul' },
      { Name: '*', Action: 'deny', Precedence: 5, Type: 'consul' },
    ],
  ];
  for (const [i, entry] of entries.entries()) {
    const res = await call(hub, 'PUT', '/v1/config', entry);
    assert.equal(res.status, 200, res.text);
    const back = (await call(hub, 'GET', `/v1/config/${entry.Kind}/${encodeURIComponent(entry.Name)}`)).json;
    assert.deepEqual(back.Sources, expected[i]);
  }
});
