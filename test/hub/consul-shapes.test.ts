// What Consul's own tools send, read as Consul reads it: an empty `Check`
// (the `consul` CLI's `"Check":{}`) is no check; the "0s" durations HashiCorp's
// Go API puts in every HealthCheckDefinition are unset; and the AgentService
// GET /v1/agent/service/:id answers carries a Proxy block and a ContentHash.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { NodeService } from '../../src/catalog/types';
import { agentServiceDetail } from '../../src/http/routes/agent-service';
import { agentIdentity, agentRegisterCommand } from '../../src/http/translate/agent';
import { registerCommand } from '../../src/http/translate/catalog';

const id = agentIdentity({ nodeName: 'hub-1', bind: '0.0.0.0', datacenter: 'dc1' });
const sidecars = { datacenter: 'dc1', minPort: 21000, maxPort: 21255 };

test('agent register: "Check":{} (what `consul services register` sends) is no check, sidecar included', () => {
  // The body the real CLI sends for `service { name = "web" … connect { sidecar_service {} } }`.
  const body = {
    ID: 'web1',
    Name: 'web',
    Port: 9090,
    Weights: { Passing: 1, Warning: 1 },
    Check: null,
    Checks: null,
    Connect: { SidecarService: { Weights: { Passing: 1, Warning: 1 }, Check: {}, Checks: null } },
  };
  const cmd = agentRegisterCommand({ ...body, Check: {} }, id, undefined, sidecars);
  assert.ok(cmd.type === 'register');
  assert.deepEqual(cmd.checks, []);
  // The sidecar gets Consul's two default checks, as when it names none.
  assert.deepEqual(
    cmd.sidecar?.checks.map((c) => c.Name),
    ['Connect Sidecar Listening', 'Connect Sidecar Aliasing web1'],
  );
  // Go zero values inside are still empty; a check naming a kind is not.
  const zeroes = agentRegisterCommand(
    { Name: 'w', Check: { Name: '', Interval: '', Args: [], Header: {} } },
    id,
    undefined,
    sidecars,
  );
  assert.ok(zeroes.type === 'register' && zeroes.checks.length === 0);
  assert.throws(
    () => agentRegisterCommand({ Name: 'w', Check: { TTL: '0s' } }, id, undefined, sidecars),
    /Check\.TTL: must be greater than zero/,
  );
});

test('catalog register: the Go API\'s "0s" Interval, Timeout and DeregisterCriticalServiceAfter are unset', () => {
  const definition = (extra: Record<string, unknown>) => ({
    HTTP: '',
    Header: null,
    Method: '',
    Body: '',
    TLSServerName: '',
    TLSSkipVerify: false,
    TCP: '',
    UDP: '',
    GRPC: '',
    OSService: '',
    GRPCUseTLS: false,
    Interval: '0s',
    Timeout: '0s',
    DeregisterCriticalServiceAfter: '0s',
    ...extra,
  });
  const cmd = registerCommand(
    {
      Node: 'n1',
      Address: '10.0.0.1',
      Check: { Node: 'n1', CheckID: 'c1', Name: 'c1', Status: 'passing', Definition: definition({}) },
    },
    { datacenter: 'dc1' },
  );
  assert.ok(cmd.type === 'register');
  const check = cmd.checks[0]!;
  assert.equal(check.Interval, '');
  assert.equal(check.Timeout, '');
  for (const key of ['Interval', 'Timeout', 'DeregisterCriticalServiceAfter'])
    assert.equal(check.Definition[key], undefined, key);
  // Set ones are kept as given.
  const http = registerCommand(
    {
      Node: 'n1',
      Address: '10.0.0.1',
      Check: { CheckID: 'h', Definition: definition({ HTTP: 'http://127.0.0.1:1/', Interval: '10s' }) },
    },
    { datacenter: 'dc1' },
  );
  assert.ok(http.type === 'register');
  assert.equal(http.checks[0]!.Interval, '10s');
  assert.equal(http.checks[0]!.Definition.Interval, '10s');
  assert.equal(http.checks[0]!.Definition.Timeout, undefined);
});

function service(over: Partial<NodeService>): NodeService {
  return {
    Kind: '',
    ID: 'x',
    Service: 'x',
    Tags: [],
    Address: '',
    TaggedAddresses: {},
    Meta: {},
    Port: 1,
    Weights: { Passing: 1, Warning: 1 },
    EnableTagOverride: false,
    CreateIndex: 5,
    ModifyIndex: 5,
    ...over,
  } as NodeService;
}

test('GET /v1/agent/service/:id: Proxy for proxies and gateways, no indexes, a ContentHash of the content', () => {
  const proxy = agentServiceDetail(
    service({ Kind: 'connect-proxy', ID: 'web1-sidecar-proxy', Proxy: { DestinationServiceName: 'web', Mode: '' } }),
    'dc1',
  );
  assert.deepEqual(proxy.Proxy, { MeshGateway: {}, Expose: {}, DestinationServiceName: 'web', Mode: '' });
  assert.equal(proxy.CreateIndex, undefined);
  assert.equal(proxy.Datacenter, 'dc1');
  assert.match(String(proxy.ContentHash), /^[0-9a-f]{16}$/);
  const gateway = agentServiceDetail(service({ Kind: 'ingress-gateway', ID: 'ingress' }), 'dc1');
  assert.deepEqual(gateway.Proxy, { MeshGateway: {}, Expose: {} });
  assert.equal(agentServiceDetail(service({}), 'dc1').Proxy, undefined);
  // Same content, same hash (the index is not part of it); another port, another hash.
  assert.equal(
    agentServiceDetail(service({ ModifyIndex: 9 }), 'dc1').ContentHash,
    agentServiceDetail(service({}), 'dc1').ContentHash,
  );
  assert.notEqual(
    agentServiceDetail(service({ Port: 2 }), 'dc1').ContentHash,
    agentServiceDetail(service({}), 'dc1').ContentHash,
  );
});
