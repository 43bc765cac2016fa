// A regex grpc-js-xds would choke on never reaches it: the write is refused
// with a 400 naming the field and nothing is appended, and the client keeps
// serving and following later good writes without a NACK. (grpc-js-xds 1.14
// compiles route regexes with RE2 and throws out of its resource handler on
// one RE2 rejects, taking its process down: this test fails that way if the
// refusal goes.)

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ECHO_METHOD, type EchoBackend, startEcho } from './echo-backend';
import { type ClientProcess, startGrpcJsClient, startXdsHub, type XdsHub } from './harness';

let hub: XdsHub;
const echoes: EchoBackend[] = [];
let client: ClientProcess | undefined;

const router = (regex: string, to: string) => ({
  Kind: 'service-router',
  Name: 'rx',
  Routes: [
    { Match: { HTTP: { PathRegex: regex, Header: [{ Name: 'x-pick', Exact: 'yes' }] } }, Destination: { Service: to } },
  ],
});

before(async () => {
  hub = await startXdsHub();
  for (const name of ['rx-a', 'rx-b']) {
    const e = await startEcho(name);
    echoes.push(e);
    await hub.put('/v1/catalog/register', {
      Node: 'rx-node',
      Address: '127.0.0.1',
      Service: { ID: name, Service: name, Port: e.port },
    });
  }
  await hub.put('/v1/catalog/register', {
    Node: 'rx-node',
    Address: '127.0.0.1',
    Service: { ID: 'rx', Service: 'rx', Port: echoes[0]!.port },
  });
  await hub.put('/v1/config', { Kind: 'service-defaults', Name: 'rx', Protocol: 'grpc' });
  await hub.put('/v1/config', router('/xdshub\\.test\\..*', 'rx-b'));
});

after(async () => {
  await client?.stop();
  await hub?.close();
  await Promise.all(echoes.map((e) => e.close()));
});

async function nacks(): Promise<number> {
  const metric = await hub.xds.metrics.nacks.get();
  return metric.values.reduce((s, v) => s + v.value, 0);
}

test('a router regex RE2 rejects is a 400 naming the field, nothing is appended, and grpc-js-xds keeps serving', async () => {
  client = startGrpcJsClient(hub.hub.grpcPort, 'xds:///rx', ECHO_METHOD, { 'x-pick': 'yes' }, 'rx-js');
  await client.untilServing('rx-b');

  for (const [regex, reason] of [
    ['/xdshub[', /missing closing \]/],
    ['/(?=xdshub).*', /\(\?=/],
    ['/(x)\\1', /\\1/],
  ] as const) {
    const before = hub.hub.catalog.lastIndex();
    const res = await fetch(`${hub.hub.httpUrl}/v1/config`, {
      method: 'PUT',
      body: JSON.stringify(router(regex, 'rx-a')),
    });
    const text = await res.text();
    assert.equal(res.status, 400, text);
    assert.match(text, /^Routes\[0\]\.Match\.HTTP\.PathRegex: not a valid RE2 regex/);
    assert.match(text, reason);
    assert.equal(hub.hub.catalog.lastIndex(), before, 'nothing appended');
  }

  // The client is alive and still follows the hub: a good change moves it.
  await hub.put('/v1/config', router('/xdshub\\.test\\.E[a-z]+/.*', 'rx-a'));
  const seen = client.lines.length;
  await client.untilServing('rx-a');
  assert.ok(client.lines.length > seen);
  assert.equal(await nacks(), 0, 'the client NACKed nothing');
});
