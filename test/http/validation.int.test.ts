// Names, IDs and stored JSON are validated on every write endpoint (400 naming
// the field, nothing logged), and apply refuses what slips past (another
// producer, an old log entry), so no stored value can poison a read.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { MAX_JSON_DEPTH, MAX_NAME_BYTES } from '../../src/catalog/limits';
import type { Hub } from '../../src/hub';
import { call, startHub } from '../helpers/hub';

let hub: Hub;
before(async () => {
  hub = await startHub({ nodeName: 'hub-validation' });
  const ok = await call(hub, 'PUT', '/v1/catalog/register', {
    Node: 'n1',
    Address: '10.0.0.1',
    Service: { ID: 'web-1', Service: 'web', Port: 80 },
  });
  assert.equal(ok.status, 200, ok.text);
});
after(() => hub.close());

const node = (name: string) => ({ Node: name, Address: '10.0.0.9' });

/** Each request answers 400 with a message starting with its field; the log does not grow. */
async function refused(cases: Array<[string, string, unknown, RegExp]>): Promise<void> {
  const before = await hub.log.lastIndex();
  for (const [method, url, body, pattern] of cases) {
    const res = await call(hub, method, url, body);
    assert.equal(res.status, 400, `${method} ${url} ${JSON.stringify(body)?.slice(0, 120)}: ${res.text}`);
    assert.match(res.text, pattern);
  }
  assert.equal(await hub.log.lastIndex(), before, 'nothing was appended');
}

/** The reads the NUL probe broke, all answering 200. */
async function readsWork(): Promise<void> {
  for (const url of [
    '/v1/catalog/services',
    '/v1/catalog/nodes',
    '/v1/health/checks/web',
    '/v1/health/service/web',
    '/v1/catalog/service/web',
    '/v1/health/state/any',
  ]) {
    const res = await call(hub, 'GET', url);
    assert.equal(res.status, 200, `${url}: ${res.text}`);
  }
}

test('a NUL or another control character in a name or ID is a 400 naming the field, on every write endpoint', async () => {
  await refused([
    [
      'PUT',
      '/v1/catalog/register',
      node('a\u0000b'),
      /^Node: must not contain control characters \(U\+0000 at position 1\)/,
    ],
    [
      'PUT',
      '/v1/catalog/register',
      { ...node('n2'), Service: { ID: 'w\u0000x', Service: 'web' } },
      /^Service\.ID: must not contain control characters/,
    ],
    [
      'PUT',
      '/v1/catalog/register',
      { ...node('n2'), Service: { Service: 'we\nb' } },
      /^Service\.Service: must not contain control characters \(U\+000A/,
    ],
    [
      'PUT',
      '/v1/catalog/register',
      { ...node('n2'), Checks: [{ CheckID: 'c\u0007' }] },
      /^Checks\[0\]\.CheckID: must not contain control characters/,
    ],
    [
      'PUT',
      '/v1/catalog/register',
      { ...node('n2'), NodeMeta: { 'k\u0000': 'v' } },
      /^NodeMeta\["k\\u0000"\]: key must not contain control characters/,
    ],
    ['PUT', '/v1/catalog/deregister', { Node: 'n1\u0000' }, /^Node: must not contain control characters/],
    [
      'PUT',
      '/v1/agent/service/register',
      { Name: 'api\u0085' },
      /^Name: must not contain control characters \(U\+0085/,
    ],
    [
      'PUT',
      '/v1/agent/service/register',
      { Name: 'api', ID: 'api\u007f1' },
      /^ID: must not contain control characters \(U\+007F/,
    ],
    [
      'PUT',
      '/v1/agent/service/register',
      { Name: 'api', Check: { TTL: '10s', CheckID: 'x\u0001' } },
      /^Check\.CheckID: must not contain control characters/,
    ],
    [
      'PUT',
      '/v1/txn',
      [{ Node: { Verb: 'set', Node: node('t\u0000x') } }],
      /^\[0\]\.Node\.Node\.Node: must not contain control characters/,
    ],
    [
      'PUT',
      '/v1/txn',
      [{ Service: { Verb: 'set', Node: 'n1', Service: { ID: 's\u0000', Service: 's' } } }],
      /^\[0\]\.Service\.Service\.ID: must not/,
    ],
    [
      'PUT',
      '/v1/config',
      { Kind: 'service-defaults', Name: 'we\u0000b' },
      /^Name: must not contain control characters/,
    ],
    [
      'PUT',
      '/v1/config',
      { Kind: 'service-resolver', Name: 'web', Redirect: { Service: 'a\u0000' } },
      /^Redirect\.Service: must not contain/,
    ],
  ]);
  await readsWork();
});

test(`names are at most ${MAX_NAME_BYTES} bytes of UTF-8 (a 1 MB service name never reaches xDS)`, async () => {
  const exact = 'n'.repeat(MAX_NAME_BYTES);
  assert.equal((await call(hub, 'PUT', '/v1/catalog/register', node(exact))).status, 200, 'exactly the limit is fine');
  await refused([
    [
      'PUT',
      '/v1/catalog/register',
      node(`${exact}x`),
      new RegExp(`^Node: must be at most ${MAX_NAME_BYTES} bytes of UTF-8, got ${MAX_NAME_BYTES + 1}`),
    ],
    ['PUT', '/v1/catalog/register', node('€'.repeat(86)), /^Node: must be at most 256 bytes of UTF-8, got 258/],
    [
      'PUT',
      '/v1/catalog/register',
      { ...node('n2'), Service: { Service: 'c'.repeat(1 << 20) } },
      /^Service\.Service: must be at most 256 bytes/,
    ],
    ['PUT', '/v1/agent/service/register', { Name: 'c'.repeat(1 << 20), Port: 80 }, /^Name: must be at most 256 bytes/],
    [
      'PUT',
      '/v1/config',
      {
        Kind: 'ingress-gateway',
        Name: 'gw',
        Listeners: [{ Port: 8080, Protocol: 'http', Services: [{ Name: 'x'.repeat(300) }] }],
      },
      /^Listeners\[0\]\.Services\[0\]\.Name: must be at most/,
    ],
  ]);
  assert.equal((await call(hub, 'PUT', '/v1/catalog/deregister', { Node: exact })).status, 200);
});

test('invalid UTF-8 bytes and lone surrogates are refused, wherever they are', async () => {
  const before = await hub.log.lastIndex();
  const bytes = Buffer.concat([
    Buffer.from('{"Node":"a'),
    Buffer.from([0xff, 0xfe]),
    Buffer.from('b","Address":"10.0.0.1"}'),
  ]);
  const raw = await hub.http.inject({
    method: 'PUT',
    url: '/v1/catalog/register',
    payload: bytes,
    headers: { 'content-type': 'application/json' },
  });
  assert.equal(raw.statusCode, 400, raw.body);
  assert.match(raw.body, /^body: Request decoding failed: not valid UTF-8/);
  const escaped = async (url: string, text: string) => {
    const res = await hub.http.inject({
      method: 'PUT',
      url,
      payload: text,
      headers: { 'content-type': 'application/json' },
    });
    return { status: res.statusCode, text: res.body };
  };
  const cases: Array<[string, string, RegExp]> = [
    [
      '/v1/catalog/register',
      '{"Node":"a\\ud800b","Address":"10.0.0.1"}',
      /^Node: is not valid Unicode: lone surrogate U\+D800 at position 1/,
    ],
    [
      '/v1/catalog/register',
      '{"Node":"n2","Address":"10.0.0.1","Service":{"Service":"s","Meta":{"k":"\\udc00"}}}',
      /^Service\.Meta\.k: is not valid Unicode: lone surrogate U\+DC00/,
    ],
    [
      '/v1/catalog/register',
      '{"Node":"n2","Address":"10.0.0.1","NodeMeta":{"\\ud83d":"v"}}',
      /^NodeMeta\["\\ud83d"\]: key is not valid Unicode/,
    ],
    [
      '/v1/txn',
      '[{"Node":{"Verb":"set","Node":{"Node":"x","Address":"1.2.3.4","Meta":{"a":"\\ud83d"}}}}]',
      /^\[0\]\.Node\.Node\.Meta\.a: is not valid Unicode/,
    ],
    [
      '/v1/config',
      '{"Kind":"service-defaults","Name":"web","Unknown":{"deep":"\\udfff"}}',
      /^Unknown\.deep: is not valid Unicode/,
    ],
  ];
  for (const [url, text, pattern] of cases) {
    const res = await escaped(url, text);
    assert.equal(res.status, 400, `${url} ${text}: ${res.text}`);
    assert.match(res.text, pattern);
  }
  // A surrogate pair is a character like any other.
  assert.equal((await escaped('/v1/catalog/register', '{"Node":"n-\\ud83d\\ude00","Address":"10.0.0.1"}')).status, 200);
  assert.equal((await call(hub, 'PUT', '/v1/catalog/deregister', { Node: 'n-😀' })).status, 200);
  assert.equal(await hub.log.lastIndex(), before + 2n, 'only the valid register and its deregistration were logged');
});

function nested(depth: number): unknown {
  let v: unknown = 'leaf';
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

test(`config entries nested deeper than ${MAX_JSON_DEPTH} levels are refused; the kind stays readable`, async () => {
  await refused([
    [
      'PUT',
      '/v1/config',
      { Kind: 'service-defaults', Name: 'deep', Extra: nested(2_500) },
      new RegExp(`^Extra(\\.a)+: nests deeper than ${MAX_JSON_DEPTH} levels`),
    ],
    [
      'PUT',
      '/v1/config',
      { Kind: 'service-defaults', Name: 'deep', Extra: nested(MAX_JSON_DEPTH) },
      /nests deeper than/,
    ],
    [
      'PUT',
      '/v1/catalog/register',
      { ...node('n2'), Service: { Service: 's', Proxy: { Config: nested(100) } } },
      /^Service\.Proxy\.Config(\.a)+: nests deeper/,
    ],
  ]);
  const fine = await call(hub, 'PUT', '/v1/config', {
    Kind: 'service-defaults',
    Name: 'deep',
    Extra: nested(MAX_JSON_DEPTH - 2),
  });
  assert.equal(fine.status, 200, fine.text);
  assert.equal((await call(hub, 'GET', '/v1/config/service-defaults/deep')).status, 200);
  assert.equal((await call(hub, 'GET', '/v1/config/service-defaults')).status, 200);
});

test("stored JSON has a size limit and Meta has Consul's limits", async () => {
  const meta65 = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, 'v']));
  await refused([
    [
      'PUT',
      '/v1/config',
      { Kind: 'service-defaults', Name: 'big', Extra: 'x'.repeat(600 * 1024) },
      /^body: is \d+ bytes as JSON, more than the 524288 bytes/,
    ],
    [
      'PUT',
      '/v1/catalog/register',
      { ...node('n2'), NodeMeta: meta65 },
      /^NodeMeta: must have at most 64 pairs, got 65/,
    ],
    [
      'PUT',
      '/v1/catalog/register',
      { ...node('n2'), Service: { Service: 's', Meta: { ['k'.repeat(129)]: 'v' } } },
      /^Service\.Meta\["k+"\]: key must be at most 128 bytes of UTF-8, got 129/,
    ],
    [
      'PUT',
      '/v1/agent/service/register',
      { Name: 's', Meta: { k: 'v'.repeat(513) } },
      /^Meta\.k: must be at most 512 bytes, got 513/,
    ],
    ['PUT', '/v1/config', { Kind: 'service-defaults', Name: 'm', Meta: { '': 'v' } }, /^Meta: keys must not be empty/],
    [
      'PUT',
      '/v1/catalog/register',
      { ...node('n2'), Service: { Service: 's', Proxy: { Config: { blob: 'x'.repeat(600 * 1024) } } } },
      /^Service: is \d+ bytes as JSON/,
    ],
  ]);
});

test('a TTL of zero is refused', async () => {
  await refused([
    [
      'PUT',
      '/v1/agent/service/register',
      { Name: 's', Check: { TTL: '0s' } },
      /^Check\.TTL: must be greater than zero, got "0s"/,
    ],
    [
      'PUT',
      '/v1/catalog/register',
      { ...node('n2'), Checks: [{ CheckID: 'c', Definition: { TTL: '0s' } }] },
      /^Checks\[0\]\.Definition\.TTL: must be greater than zero/,
    ],
  ]);
});

test('a check interval of zero is refused', async () => {
  await refused([
    [
      'PUT',
      '/v1/agent/service/register',
      { Name: 's', Check: { HTTP: 'http://127.0.0.1/', Interval: '0s' } },
      /^Check\.Interval: must be greater than zero/,
    ],
    [
      'PUT',
      '/v1/catalog/register',
      { ...node('n2'), Checks: [{ CheckID: 'c', Definition: { HTTP: 'http://x/', IntervalDuration: '0s' } }] },
      /^Checks\[0\]\.Definition\.IntervalDuration: must be greater than zero/,
    ],
  ]);
});

test('duplicate CheckIDs in a catalog registration are refused, as the agent endpoint does', async () => {
  await refused([
    [
      'PUT',
      '/v1/catalog/register',
      { ...node('n2'), Checks: [{ CheckID: 'c', Status: 'passing' }, { CheckID: 'd' }, { Name: 'c' }] },
      /^Checks\[2\]\.CheckID: duplicate check ID "c"/,
    ],
    [
      'PUT',
      '/v1/catalog/register',
      { ...node('n2'), Check: { CheckID: 'c' }, Checks: [{ CheckID: 'c' }] },
      /^Checks\[0\]\.CheckID: duplicate check ID "c"/,
    ],
    [
      'PUT',
      '/v1/agent/service/register',
      {
        Name: 's',
        Checks: [
          { TTL: '1s', CheckID: 'x' },
          { TTL: '1s', CheckID: 'x' },
        ],
      },
      /^Checks\[1\]\.CheckID: duplicate check ID "x"/,
    ],
  ]);
});

test('port -0 is refused (JSON text, since JSON.stringify writes -0 as 0)', async () => {
  const before = await hub.log.lastIndex();
  const cases: Array<[string, string, RegExp]> = [
    [
      '/v1/catalog/register',
      '{"Node":"n2","Address":"10.0.0.1","Service":{"Service":"s","Port":-0}}',
      /^Service\.Port: must be an integer, got -0/,
    ],
    ['/v1/agent/service/register', '{"Name":"s","Port":-0}', /^Port: must be an integer, got -0/],
  ];
  for (const [url, payload, pattern] of cases) {
    const res = await hub.http.inject({ method: 'PUT', url, payload, headers: { 'content-type': 'application/json' } });
    assert.equal(res.statusCode, 400, res.body);
    assert.match(res.body, pattern);
  }
  assert.equal(await hub.log.lastIndex(), before);
});

test('apply refuses what the HTTP layer would: a direct submit and an old log entry with a NUL name poison nothing', async () => {
  const bad = { ID: '', Node: 'x\u0000y', Address: '10.0.0.3', Datacenter: 'dc1', TaggedAddresses: {}, Meta: {} };
  const before = await hub.log.lastIndex();
  const direct = await hub.catalog.submit({ type: 'register', node: bad, checks: [], skipNodeUpdate: false });
  assert.deepEqual([direct.ok, direct.error?.field], [false, 'Node.Node']);
  assert.equal(await hub.log.lastIndex(), before, 'refused before append');
  // An entry an earlier version wrote (as the probe's NUL node did) is refused when applied.
  const [index] = await hub.log.append([
    JSON.stringify({
      type: 'register',
      node: { ...bad, Node: 'n1' },
      service: {
        Kind: '',
        ID: 'w\u0000x',
        Service: 'web',
        Tags: [],
        Address: '',
        TaggedAddresses: {},
        Meta: {},
        Port: 1,
        Weights: { Passing: 1, Warning: 1 },
        EnableTagOverride: false,
      },
      checks: [],
      skipNodeUpdate: true,
    }),
  ]);
  await hub.catalog.waitForIndex(index! - 1n);
  assert.equal(hub.catalog.serviceInstances('web').value.length, 1, 'the poisoned instance was not stored');
  await readsWork();
});
