// Consul JSON → catalog commands, without a catalog: defaults, IDs, and the
// field named in every refusal.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isHubError } from '../../src/errors';
import { agentIdentity, agentRegisterCommand, checkUpdateFromBody } from '../../src/http/translate/agent';
import { deregisterCommand, registerCommand } from '../../src/http/translate/catalog';
import { parseConfigEntry } from '../../src/http/translate/config-entries';
import { TooManyOps, TxnOpErrors, txnCommand } from '../../src/http/translate/txn';

const dc = { datacenter: 'dc1' };
const id = agentIdentity({ nodeName: 'hub-1', bind: '0.0.0.0', datacenter: 'dc1' });
const sidecars = { datacenter: 'dc1', minPort: 21000, maxPort: 21255 };

function rejects(fn: () => unknown, field: string, reason?: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(isHubError(err, 'INVALID_ARGUMENT'), `expected INVALID_ARGUMENT, got ${String(err)}`);
    assert.equal(err.field, field);
    assert.ok(err.message.startsWith(field), err.message);
    if (reason) assert.match(err.message, reason);
    return true;
  });
}

test('catalog register: Consul defaults (service ID = name, weights 1/1, check status critical, CheckID = Name)', () => {
  const cmd = registerCommand(
    {
      Node: 'n1',
      Address: '10.0.0.1',
      Service: { Service: 'web', Port: 80 },
      Check: { Name: 'alive', ServiceID: 'web' },
    },
    dc,
  );
  assert.equal(cmd.type, 'register');
  if (cmd.type !== 'register') return;
  assert.equal(cmd.node.Datacenter, 'dc1');
  assert.equal(cmd.service?.ID, 'web');
  assert.deepEqual(cmd.service?.Weights, { Passing: 1, Warning: 1 });
  assert.equal(cmd.checks[0]?.CheckID, 'alive');
  assert.equal(cmd.checks[0]?.Status, 'critical');
  assert.equal(cmd.checks[0]?.Node, 'n1');
});

test('catalog register: keys match case-insensitively, as Go decodes them', () => {
  const cmd = registerCommand({ node: 'n1', address: '10.0.0.1', service: { service: 'web', port: 8080 } }, dc);
  assert.ok(cmd.type === 'register' && cmd.service?.Port === 8080 && cmd.node.Node === 'n1');
});

test('catalog register: bad input names the field', () => {
  rejects(() => registerCommand({ Address: 'a' }, dc), 'Node', /required/);
  rejects(
    () => registerCommand({ Node: 'n', Address: 'a', Service: { Service: 'web', Port: 'x' } }, dc),
    'Service.Port',
    /integer/,
  );
  rejects(
    () => registerCommand({ Node: 'n', Address: 'a', Service: { Service: 'web', Port: 70000 } }, dc),
    'Service.Port',
  );
  rejects(() => registerCommand({ Node: 'n', Address: 'a', Service: { Port: 1 } }, dc), 'Service.Service', /required/);
  rejects(
    () => registerCommand({ Node: 'n', Address: 'a', Service: { Service: 'w', Tags: ['a', 1] } }, dc),
    'Service.Tags[1]',
  );
  rejects(
    () => registerCommand({ Node: 'n', Address: 'a', Checks: [{ Name: 'c', Status: 'bogus' }] }, dc),
    'Checks[0].Status',
  );
  rejects(() => registerCommand({ Node: 'n', Address: 'a', Check: { Node: 'other', Name: 'c' } }, dc), 'Check.Node');
  rejects(() => registerCommand({ Node: 'n', Address: 'a', Datacenter: 'dc9' }, dc), 'Datacenter');
  rejects(() => registerCommand({ ID: 'not-a-uuid', Node: 'n', Address: 'a' }, dc), 'ID');
  rejects(() => registerCommand([1, 2], dc), 'body');
});

test('catalog deregister: node, service or check', () => {
  assert.deepEqual(deregisterCommand({ Node: 'n' }, dc), { type: 'deregister', node: 'n' });
  assert.deepEqual(deregisterCommand({ Node: 'n', ServiceID: 's' }, dc), {
    type: 'deregister',
    node: 'n',
    serviceId: 's',
  });
  rejects(() => deregisterCommand({}, dc), 'Node');
});

test('agent register: the consul npm client body; TTL check gets ID service:<id>, critical, Definition.TTL', () => {
  const cmd = agentRegisterCommand(
    { Name: 'web', ID: 'web1', Port: 80, Check: { TTL: '10s' } },
    id,
    undefined,
    sidecars,
  );
  assert.ok(cmd.type === 'register');
  if (cmd.type !== 'register') return;
  assert.equal(cmd.node.Node, 'hub-1');
  assert.equal(cmd.node.Address, '127.0.0.1');
  assert.equal(cmd.skipNodeUpdate, false);
  assert.equal(cmd.service?.ID, 'web1');
  const [check] = cmd.checks;
  assert.equal(check?.CheckID, 'service:web1');
  assert.equal(check?.Name, "Service 'web' check");
  assert.equal(check?.Status, 'critical');
  assert.equal(check?.Type, 'ttl');
  assert.equal(check?.ServiceID, 'web1');
  assert.equal(check?.Definition.TTL, '10s');
});

test('agent register: several checks are numbered service:<id>:<n>; an explicit Status is kept', () => {
  const cmd = agentRegisterCommand(
    {
      Name: 'api',
      Checks: [
        { TTL: '5s', Status: 'passing' },
        { HTTP: 'http://x/health', Interval: '10s' },
      ],
    },
    id,
    [],
    sidecars,
  );
  if (cmd.type !== 'register') throw new Error('expected register');
  assert.deepEqual(
    cmd.checks.map((c) => c.CheckID),
    ['service:api:1', 'service:api:2'],
  );
  assert.equal(cmd.checks[0]?.Status, 'passing');
  assert.equal(cmd.checks[1]?.Type, 'http');
  assert.equal(cmd.checks[1]?.Interval, '10s');
  assert.equal(cmd.skipNodeUpdate, true);
});

test('agent register: bad checks name the field', () => {
  rejects(() => agentRegisterCommand({ Name: 'w', Check: { Notes: 'n' } }, id, undefined, sidecars), 'Check.TTL');
  rejects(
    () => agentRegisterCommand({ Name: 'w', Check: { TTL: 'soon' } }, id, undefined, sidecars),
    'Check.TTL',
    /duration/,
  );
  rejects(
    () => agentRegisterCommand({ Name: 'w', Check: { HTTP: 'http://x' } }, id, undefined, sidecars),
    'Check.Interval',
    /required/,
  );
  rejects(
    () =>
      agentRegisterCommand(
        { Name: 'w', Checks: [{ TTL: '1s' }, { TTL: '1s', TCP: 'x:1', Interval: '1s' }] },
        id,
        undefined,
        sidecars,
      ),
    'Checks[1].TCP',
  );
  rejects(
    () =>
      agentRegisterCommand(
        {
          Name: 'w',
          Checks: [
            { TTL: '1s', CheckID: 'a' },
            { TTL: '1s', CheckID: 'a' },
          ],
        },
        id,
        undefined,
        sidecars,
      ),
    'Checks[1].CheckID',
  );
  rejects(() => agentRegisterCommand({ Port: 1 }, id, undefined, sidecars), 'Name');
});

test('agent check update body: Status required and valid', () => {
  assert.deepEqual(checkUpdateFromBody({ Status: 'warning', Output: 'slow' }), { status: 'warning', output: 'slow' });
  rejects(() => checkUpdateFromBody({}), 'Status');
  rejects(() => checkUpdateFromBody({ Status: 'fine' }), 'Status');
});

test('txn: Node/Service/Check verbs map to txn ops; get reads; unknown verbs are 409 per op as in Consul (KV verbs: test/http/txn.int.test.ts)', () => {
  const cmd = txnCommand(
    [
      { Node: { Verb: 'set', Node: { Node: 'n1', Address: '10.0.0.1' } } },
      { Service: { Verb: 'cas', Node: 'n1', Service: { Service: 'web', ModifyIndex: 7 } } },
      { Check: { Verb: 'delete', Check: { Node: 'n1', CheckID: 'c' } } },
      { Node: { Verb: 'delete-cas', Node: { Node: 'n2', ModifyIndex: 3 } } },
    ],
    dc,
  );
  if (cmd.type !== 'txn') throw new Error('expected txn');
  assert.deepEqual(
    cmd.ops.map((o) => o.op),
    ['node-set', 'service-cas', 'check-delete', 'node-delete-cas'],
  );
  assert.equal((cmd.ops[1] as { index: number }).index, 7);
  const get = txnCommand([{ Node: { Verb: 'get', Node: { Node: 'n' } } }], dc);
  assert.deepEqual(get, { type: 'txn', ops: [{ op: 'node-get', node: 'n' }] });
  assert.throws(
    () => txnCommand([{ Node: { Verb: 'upsert', Node: { Node: 'n' } } }], dc),
    (err: unknown) =>
      err instanceof TxnOpErrors && err.errors[0]?.What === 'unknown Node verb "upsert"' && err.httpStatus === 409,
  );
  rejects(
    () => txnCommand([{ Service: { Verb: 'set', Node: 'n', Service: { Port: 1 } } }], dc),
    '[0].Service.Service.Service',
  );
  rejects(() => txnCommand({}, dc), 'body');
  assert.throws(
    () =>
      txnCommand(
        Array.from({ length: 129 }, () => ({ Node: { Verb: 'delete', Node: { Node: 'n' } } })),
        dc,
      ),
    TooManyOps,
  );
});

test('config entries: each kind validated; keys re-spelled in PascalCase', () => {
  assert.deepEqual(parseConfigEntry({ kind: 'service-defaults', name: 'web', protocol: 'http' }), {
    Kind: 'service-defaults',
    Name: 'web',
    Protocol: 'http',
  });
  assert.equal(parseConfigEntry({ Kind: 'mesh' }).Name, 'mesh');
  parseConfigEntry({
    Kind: 'service-resolver',
    Name: 'web',
    DefaultSubset: 'v1',
    Subsets: { v1: { Filter: 'Service.Meta.v == 1' } },
    LoadBalancer: { Policy: 'ring_hash', HashPolicies: [{ Field: 'header', FieldValue: 'x-user' }] },
  });
  parseConfigEntry({
    Kind: 'ingress-gateway',
    Name: 'ig',
    Listeners: [{ Port: 8080, Protocol: 'http', Services: [{ Name: '*' }] }],
  });
  parseConfigEntry({
    Kind: 'http-route',
    Name: 'r',
    Parents: [{ Name: 'gw' }],
    Rules: [{ Matches: [{ Path: { Match: 'prefix', Value: '/api' } }], Services: [{ Name: 'api' }] }],
  });
  parseConfigEntry({
    Kind: 'service-intentions',
    Name: 'db',
    Sources: [
      { Name: 'web', Action: 'allow' },
      { Name: '*', Action: 'deny' },
    ],
  });

  assert.throws(() => parseConfigEntry({ Kind: 'no-such-kind', Name: 'x' }), /invalid config entry kind: no-such-kind/);
  assert.throws(
    () => parseConfigEntry({ Kind: 'jwt-provider', Name: 'x' }),
    /Kind: config entry kind "jwt-provider" is not supported by this hub/,
  );
  rejects(() => parseConfigEntry({ Name: 'x' }), 'Kind');
  rejects(() => parseConfigEntry({ Kind: 'service-defaults' }), 'Name');
  rejects(
    () => parseConfigEntry({ Kind: 'service-defaults', Name: 'w', Protocol: 'udp' }),
    'Protocol',
    /"tcp", "http", "http2", "grpc"/,
  );
  rejects(
    () => parseConfigEntry({ Kind: 'service-resolver', Name: 'w', LoadBalancer: { Policy: 'fastest' } }),
    'LoadBalancer.Policy',
  );
  rejects(() => parseConfigEntry({ Kind: 'service-resolver', Name: 'w', DefaultSubset: 'v2' }), 'DefaultSubset');
  rejects(() => parseConfigEntry({ Kind: 'service-resolver', Name: 'w', ConnectTimeout: 'later' }), 'ConnectTimeout');
  rejects(
    () => parseConfigEntry({ Kind: 'ingress-gateway', Name: 'ig', Listeners: [{ Port: 80, Protocol: 'quic' }] }),
    'Listeners[0].Protocol',
  );
  rejects(
    () => parseConfigEntry({ Kind: 'ingress-gateway', Name: 'ig', Listeners: [{ Protocol: 'http' }] }),
    'Listeners[0].Port',
  );
  rejects(
    () => parseConfigEntry({ Kind: 'ingress-gateway', Name: 'ig', Listeners: [{ Port: 80, Services: [{}] }] }),
    'Listeners[0].Services[0].Name',
  );
  const tgw =
    (...Services: Record<string, unknown>[]) =>
    () =>
      parseConfigEntry({ Kind: 'terminating-gateway', Name: 't', Services });
  rejects(tgw({}), 'Services[0].Name');
  rejects(tgw({ Name: 'db' }, { Name: 'db' }), 'Services[1].Name');
  rejects(tgw({ Name: 'db', CAFile: '/ca.pem', CertFile: '/c.pem' }), 'Services[0].KeyFile');
  rejects(tgw({ Name: 'db', KeyFile: '/k.pem' }), 'Services[0].CertFile');
  rejects(tgw({ Name: 'db', CertFile: '/c.pem', KeyFile: '/k.pem' }), 'Services[0].CAFile');
  rejects(tgw({ Name: 'db', SNI: 'db.example' }), 'Services[0].SNI');
  assert.equal(
    tgw({ Name: '*', CAFile: '/ca.pem' }, { Name: 'db', CAFile: '/ca.pem', CertFile: '/c', KeyFile: '/k', SNI: 'x' })()
      .Kind,
    'terminating-gateway',
  );
  rejects(() => parseConfigEntry({ Kind: 'http-route', Name: 'r', Rules: [] }), 'Parents');
  rejects(
    () =>
      parseConfigEntry({
        Kind: 'http-route',
        Name: 'r',
        Parents: [{ Name: 'g' }],
        Rules: [{ Matches: [{ Path: { Match: 'glob' } }] }],
      }),
    'Rules[0].Matches[0].Path.Match',
  );
  rejects(() => parseConfigEntry({ Kind: 'mesh', Name: 'other' }), 'Name');
  rejects(
    () => parseConfigEntry({ Kind: 'service-intentions', Name: 'db', Sources: [{ Name: 'web', Action: 'maybe' }] }),
    'Sources[0].Action',
  );
  rejects(
    () => parseConfigEntry({ Kind: 'service-intentions', Name: 'db', Sources: [{ Name: 'web' }] }),
    'Sources[0].Action',
  );
});
