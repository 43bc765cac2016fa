// service-router and service-splitter, as Consul defines them, through every
// layer: PUT /v1/config validates them (400 naming the field), they are
// appended to the log and read back through the materialized views, and
// Subscribe streams them on the hub's extension topics (ServiceRouter = 1001,
// ServiceSplitter = 1002) as ConfigEntry payloads that decode back to the
// same entry. Routers and splitters need a service speaking http, http2 or
// grpc, as Consul's discovery chain does.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Hub } from '../../src/hub';
import { StreamReader, subscribeClient } from '../subscribe/grpc-helpers';
import { hubCall, startHubWithXds } from './harness';

let hub: Hub;
before(async () => {
  hub = await startHubWithXds();
});
after(async () => {
  await hub?.close();
});

const ROUTER = {
  Kind: 'service-router',
  Name: 'web',
  Routes: [
    {
      Match: {
        HTTP: {
          PathPrefix: '/admin',
          Header: [{ Name: 'x-debug', Exact: '1' }],
          QueryParam: [{ Name: 'v', Present: true }],
          Methods: ['GET', 'POST'],
        },
      },
      Destination: {
        Service: 'admin',
        PrefixRewrite: '/',
        RequestTimeout: '2s',
        NumRetries: 3,
        RetryOnConnectFailure: true,
        RetryOnStatusCodes: [503],
        RetryOn: ['reset'],
      },
    },
    { Match: { HTTP: { PathRegex: '^/v[0-9]+/.*' } }, Destination: { ServiceSubset: 'v2' } },
  ],
};
const SPLITTER = {
  Kind: 'service-splitter',
  Name: 'web',
  Splits: [
    { Weight: 90, ServiceSubset: 'v1', ResponseHeaders: { Set: { 'x-version': 'v1' } } },
    { Weight: 10, Service: 'web-canary', RequestHeaders: { Add: { 'x-canary': 'yes' }, Remove: ['x-drop'] } },
  ],
};

test('PUT /v1/config stores service-router and service-splitter; GET reads them back from the views', async () => {
  await hubCall(hub.httpUrl, 'PUT', '/v1/config', { Kind: 'service-defaults', Name: 'web', Protocol: 'http' });
  await hubCall(hub.httpUrl, 'PUT', '/v1/config', ROUTER);
  await hubCall(hub.httpUrl, 'PUT', '/v1/config', SPLITTER);
  const router = await hubCall(hub.httpUrl, 'GET', '/v1/config/service-router/web');
  assert.deepEqual(router.Routes, ROUTER.Routes);
  const list = await hubCall(hub.httpUrl, 'GET', '/v1/config/service-splitter');
  assert.deepEqual(
    list.map((e: { Name: string; Splits: unknown }) => [e.Name, e.Splits]),
    [['web', SPLITTER.Splits]],
  );
});

test('bad routers and splitters are refused with 400 naming the field, and change nothing', async () => {
  const cases: [unknown, RegExp][] = [
    [
      { ...ROUTER, Name: 'bad', Routes: [{ Match: { HTTP: { PathExact: '/a', PathPrefix: '/b' } } }] },
      /Routes\[0\]\.Match\.HTTP\.PathPrefix: path match: only one of/,
    ],
    [
      { ...ROUTER, Name: 'bad', Routes: [{ Match: { HTTP: { PathPrefix: 'x' } } }] },
      /PathPrefix: must start with "\/"/,
    ],
    [
      {
        ...ROUTER,
        Name: 'bad',
        Routes: [{ Match: { HTTP: { PathRegex: '.*' } }, Destination: { PrefixRewrite: '/' } }],
      },
      /PrefixRewrite: needs a PathExact or PathPrefix match/,
    ],
    [
      { ...ROUTER, Name: 'bad', Routes: [{ Match: { HTTP: { Methods: ['FETCH'] } } }] },
      /Methods: "FETCH" is not an HTTP method/,
    ],
    [
      { ...ROUTER, Name: 'bad', Routes: [{ Destination: { RetryOn: ['sometimes'] } }] },
      /RetryOn: "sometimes" is not one of/,
    ],
    [{ ...ROUTER, Name: 'bad', Routes: [{ Destination: { RequestTimeout: 'soon' } }] }, /RequestTimeout/],
    [
      { ...ROUTER, Name: 'bad', Routes: [{ Match: { HTTP: { Header: [{ Name: 'a', Exact: 'x', Regex: 'y' }] } } }] },
      /header match: only one of/,
    ],
    [
      { ...SPLITTER, Name: 'bad', Splits: [{ Weight: 60 }, { Weight: 30, Service: 'b' }] },
      /Splits: weights must add up to 100, got 90/,
    ],
    [{ ...SPLITTER, Name: 'bad', Splits: [{ Weight: 101 }] }, /Splits\[0\]\.Weight: must be a number from 0 to 100/],
    [
      {
        ...SPLITTER,
        Name: 'bad',
        Splits: [
          { Weight: 50, Service: 'a' },
          { Weight: 50, Service: 'a' },
        ],
      },
      /the same service and subset appear in two splits/,
    ],
    [{ ...SPLITTER, Name: 'bad', Splits: [] }, /Splits: needs at least one split/],
  ];
  for (const [body, message] of cases) {
    const res = await fetch(`${hub.httpUrl}/v1/config`, { method: 'PUT', body: JSON.stringify(body) });
    const text = await res.text();
    assert.equal(res.status, 400, `${JSON.stringify(body)} → ${text}`);
    assert.match(text, message);
  }
  assert.equal((await fetch(`${hub.httpUrl}/v1/config/service-router/bad`)).status, 404);
  assert.equal((await fetch(`${hub.httpUrl}/v1/config/service-splitter/bad`)).status, 404);
});

/** PUT or DELETE that must be refused with 400 matching `message`, leaving the log as it was. */
async function refused(method: 'PUT' | 'DELETE', path: string, body: unknown, message: RegExp): Promise<void> {
  const before = hub.catalog.lastIndex();
  const res = await fetch(`${hub.httpUrl}${path}`, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  assert.equal(res.status, 400, `${method} ${path} ${JSON.stringify(body)} → ${res.status} ${text}`);
  assert.match(text, message);
  assert.equal(hub.catalog.lastIndex(), before, `${method} ${path}: nothing appended`);
}

test('routers and splitters need an L7 protocol (as Consul): refused for a tcp service, and no write may leave one on tcp', async () => {
  const router = {
    Kind: 'service-router',
    Name: 'plain',
    Routes: [{ Match: { HTTP: { PathPrefix: '/a' } }, Destination: { Service: 'other' } }],
  };
  const splitter = { Kind: 'service-splitter', Name: 'plain', Splits: [{ Weight: 100, Service: 'other' }] };
  // No service-defaults, no proxy-defaults: tcp, Consul's default.
  await refused(
    'PUT',
    '/v1/config',
    router,
    /Name: discovery chain "plain" uses protocol "tcp" \(the default.*service-router/,
  );
  await hubCall(hub.httpUrl, 'PUT', '/v1/config', { Kind: 'service-defaults', Name: 'plain', Protocol: 'tcp' });
  await refused(
    'PUT',
    '/v1/config',
    splitter,
    /Name: discovery chain "plain" uses protocol "tcp" \(service-defaults "plain" Protocol\).*service-splitter/,
  );
  assert.equal((await fetch(`${hub.httpUrl}/v1/config/service-router/plain`)).status, 404);
  assert.equal((await fetch(`${hub.httpUrl}/v1/config/service-splitter/plain`)).status, 404);

  // With an L7 protocol the router stands; then no write may take that protocol away.
  await hubCall(hub.httpUrl, 'PUT', '/v1/config', { Kind: 'service-defaults', Name: 'plain', Protocol: 'http' });
  await hubCall(hub.httpUrl, 'PUT', '/v1/config', router);
  await refused(
    'PUT',
    '/v1/config',
    { Kind: 'service-defaults', Name: 'plain', Protocol: 'tcp' },
    /Protocol: discovery chain "plain" uses protocol "tcp" \(service-defaults "plain" Protocol\).*service-router/,
  );
  await refused(
    'PUT',
    '/v1/config',
    { Kind: 'service-defaults', Name: 'plain' },
    /Protocol: discovery chain "plain" uses protocol "tcp" \(the default/,
  );
  await refused(
    'DELETE',
    '/v1/config/service-defaults/plain',
    undefined,
    /name: discovery chain "plain" uses protocol "tcp" \(the default/,
  );
  await hubCall(hub.httpUrl, 'PUT', '/v1/config', { Kind: 'service-defaults', Name: 'plain', Protocol: 'grpc' });
  await hubCall(hub.httpUrl, 'PUT', '/v1/config', splitter);
  await refused(
    'PUT',
    '/v1/config',
    { Kind: 'service-defaults', Name: 'plain', Protocol: 'tcp' },
    /service-router and service-splitter/,
  );
  assert.equal(
    (await hubCall(hub.httpUrl, 'GET', '/v1/config/service-defaults/plain')).Protocol,
    'grpc',
    'the refused writes changed nothing',
  );
  // Once the router and splitter are gone, tcp is fine again.
  await hubCall(hub.httpUrl, 'DELETE', '/v1/config/service-router/plain');
  await hubCall(hub.httpUrl, 'DELETE', '/v1/config/service-splitter/plain');
  await hubCall(hub.httpUrl, 'PUT', '/v1/config', { Kind: 'service-defaults', Name: 'plain', Protocol: 'tcp' });
  await hubCall(hub.httpUrl, 'DELETE', '/v1/config/service-defaults/plain');
});

test('Subscribe streams routers and splitters on the extension topics as ConfigEntry payloads', async () => {
  await hubCall(hub.httpUrl, 'PUT', '/v1/config', ROUTER);
  await hubCall(hub.httpUrl, 'PUT', '/v1/config', SPLITTER);
  const client = subscribeClient(`127.0.0.1:${hub.grpcPort}`);
  try {
    for (const [topic, kind, member] of [
      ['ServiceRouter', 'KindServiceRouter', 'ServiceRouter'],
      ['ServiceSplitter', 'KindServiceSplitter', 'ServiceSplitter'],
    ] as const) {
      const reader = new StreamReader(client.Subscribe({ Topic: topic, WildcardSubject: true } as never));
      // The entry comes in the snapshot, or (when a cached snapshot predates it) as a live event after it.
      const seen: unknown[] = [];
      let entry: any;
      while (!entry && seen.length < 10) {
        const e = (await reader.next()) as any;
        seen.push(e);
        entry = [e.ConfigEntry, ...(e.EventBatch?.Events ?? []).map((x: any) => x.ConfigEntry)].find(
          (c) => c?.ConfigEntry?.Name === 'web',
        )?.ConfigEntry;
      }
      reader.call.cancel();
      assert.ok(entry, `${topic}: a ConfigEntry event for web, got ${JSON.stringify(seen).slice(0, 400)}`);
      assert.equal(entry.Kind, kind);
      assert.equal(entry.Name, 'web');
      const body = entry[member];
      if (member === 'ServiceRouter') {
        const r = body.Routes[0];
        assert.equal(r.Match.HTTP.PathPrefix, '/admin');
        assert.deepEqual(r.Match.HTTP.Methods, ['GET', 'POST']);
        assert.equal(r.Destination.Service, 'admin');
        assert.equal(r.Destination.RequestTimeout.seconds, '2');
        assert.deepEqual(r.Destination.RetryOnStatusCodes, [503]);
        assert.equal(body.Routes[1].Destination.ServiceSubset, 'v2');
      } else {
        assert.deepEqual(
          body.Splits.map((s: any) => [s.Weight, s.Service, s.ServiceSubset]),
          [
            [90, '', 'v1'],
            [10, 'web-canary', ''],
          ],
        );
        assert.deepEqual(body.Splits[1].RequestHeaders.Add, { 'x-canary': 'yes' });
      }
    }
  } finally {
    client.close();
  }
});
