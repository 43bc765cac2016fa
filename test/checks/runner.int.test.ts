// The check runner against real servers on loopback: HTTP, TCP and gRPC checks
// registered through the agent API turn passing and critical as their targets
// do; SuccessBeforePassing / FailuresBeforeCritical count consecutive results;
// DeregisterCriticalServiceAfter reaps the service; a target outside the allowed
// networks is never probed; and a restarted hub runs the same schedules.

import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { Hub } from '../../src/hub';
import { call, startHub } from '../helpers/hub';
import { tmpDir } from '../helpers/tmp';
import { startGrpcHealth, startHttpHealth, startTcp } from './backends';
import { status, untilCheck } from './helpers';

const NODE = 'runner-hub';
const cleanups: Array<() => Promise<unknown>> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function hubWith(overrides = {}): Promise<Hub> {
  const hub = await startHub({ nodeName: NODE, ...overrides });
  cleanups.push(() => hub.close());
  return hub;
}

async function register(hub: Hub, body: object): Promise<void> {
  const res = await call(hub, 'PUT', '/v1/agent/service/register', body);
  assert.equal(res.status, 200, res.text);
}

test('HTTP, TCP and gRPC checks follow their targets, and write only changes', async () => {
  const hub = await hubWith();
  const web = await startHttpHealth();
  const tcp = await startTcp();
  const grpc = await startGrpcHealth();
  cleanups.push(web.close, tcp.close, grpc.close);
  await register(hub, {
    Name: 'web',
    ID: 'web-1',
    Port: 1,
    Check: { CheckID: 'web-http', HTTP: web.url, Interval: '100ms', Timeout: '1s' },
  });
  await register(hub, {
    Name: 'db',
    ID: 'db-1',
    Port: 2,
    Check: { CheckID: 'db-tcp', TCP: tcp.address, Interval: '100ms', Timeout: '1s' },
  });
  await register(hub, {
    Name: 'rpc',
    ID: 'rpc-1',
    Port: 3,
    Check: { CheckID: 'rpc-grpc', GRPC: `${grpc.address}/echo`, Interval: '100ms', Timeout: '1s' },
  });

  const passing = await Promise.all(
    ['web-http', 'db-tcp', 'rpc-grpc'].map((id) => untilCheck(hub.catalog, NODE, id, status('passing'))),
  );
  assert.match(passing[0]!.Output, /^HTTP GET http:\/\/127\.0\.0\.1:\d+\/health: 200 OK Output: ok$/);
  assert.match(passing[1]!.Output, /^TCP connect 127\.0\.0\.1:\d+: Success$/);
  assert.equal(passing[2]!.Output, `gRPC check ${grpc.address}/echo: success`);

  // Steady state: probes keep running, the log does not grow.
  const index = hub.catalog.lastIndex();
  await web.untilRequests(web.requests() + 3);
  assert.equal(hub.catalog.lastIndex(), index, 'unchanged results are not written');

  web.setStatus(503);
  await tcp.setOpen(false);
  grpc.setServing(false);
  const critical = await Promise.all(
    ['web-http', 'db-tcp', 'rpc-grpc'].map((id) => untilCheck(hub.catalog, NODE, id, status('critical'))),
  );
  assert.match(critical[0]!.Output, /: 503 Service Unavailable Output: not ok$/);
  // A probe racing the listener's close is reset rather than refused: either way the port is going away.
  assert.match(critical[1]!.Output, /^dial tcp 127\.0\.0\.1:\d+: connect (ECONNREFUSED|ECONNRESET)/);
  assert.match(critical[2]!.Output, /serving status NOT_SERVING/);

  web.setStatus(429);
  await untilCheck(hub.catalog, NODE, 'web-http', status('warning'));
  web.setStatus(200);
  await tcp.setOpen(true);
  grpc.setServing(true);
  await Promise.all(
    ['web-http', 'db-tcp', 'rpc-grpc'].map((id) => untilCheck(hub.catalog, NODE, id, status('passing'))),
  );
});

test('SuccessBeforePassing and FailuresBeforeCritical count consecutive results', async () => {
  const hub = await hubWith();
  const web = await startHttpHealth();
  cleanups.push(web.close);
  await register(hub, {
    Name: 'api',
    ID: 'api-1',
    Port: 1,
    Check: { CheckID: 'api-http', HTTP: web.url, Interval: '50ms', SuccessBeforePassing: 3, FailuresBeforeCritical: 3 },
  });
  await untilCheck(hub.catalog, NODE, 'api-http', status('passing'));
  assert.ok(web.requests() >= 3, `passing only after 3 successes (${web.requests()} probes)`);
  web.setStatus(500);
  const before = web.requests();
  await untilCheck(hub.catalog, NODE, 'api-http', status('critical'));
  assert.ok(web.requests() - before >= 3, `critical only after 3 failures (${web.requests() - before} probes)`);
});

test('DeregisterCriticalServiceAfter removes a service whose check stays critical', async () => {
  const hub = await hubWith();
  const tcp = await startTcp();
  await tcp.setOpen(false);
  cleanups.push(tcp.close);
  await register(hub, {
    Name: 'gone',
    ID: 'gone-1',
    Port: 1,
    Check: { CheckID: 'gone-tcp', TCP: tcp.address, Interval: '50ms', DeregisterCriticalServiceAfter: '300ms' },
  });
  await untilCheck(hub.catalog, NODE, 'gone-tcp', (c) => c === undefined);
  assert.equal(
    hub.catalog.node(NODE).value?.Services.some((s) => s.ID === 'gone-1'),
    false,
  );
});

test('a check on this node pointing outside the allowed networks is never probed', async () => {
  const hub = await hubWith();
  // The catalog API stores any check (it is not the agent API); the runner still refuses to probe it.
  const res = await call(hub, 'PUT', '/v1/catalog/register', {
    Node: NODE,
    Address: '127.0.0.1',
    Service: { ID: 'far-1', Service: 'far', Port: 80 },
    Check: {
      CheckID: 'far-http',
      Name: 'far',
      ServiceID: 'far-1',
      Status: 'passing',
      Definition: { HTTP: 'http://192.0.2.1/', Interval: '50ms' },
    },
  });
  assert.equal(res.status, 200, res.text);
  const check = await untilCheck(hub.catalog, NODE, 'far-http', status('critical'));
  assert.match(check!.Output, /"192\.0\.2\.1" \(192\.0\.2\.1\) is not an address this hub may probe/);
});

test('a hub restarted on the same log runs the same check schedules', async () => {
  const dir = await tmpDir('xdshub-checks-restart');
  cleanups.push(dir.cleanup);
  const web = await startHttpHealth();
  cleanups.push(web.close);
  const config = { store: { kind: 'sqlite' as const }, dataDir: dir.path };
  const first = await startHub({ nodeName: NODE, ...config });
  await register(first, {
    Name: 'web',
    ID: 'web-1',
    Port: 1,
    Check: { CheckID: 'web-http', HTTP: web.url, Interval: '100ms' },
  });
  await untilCheck(first.catalog, NODE, 'web-http', status('passing'));
  await first.close();

  web.setStatus(503); // fails while no hub runs
  const second = await hubWith(config);
  await untilCheck(second.catalog, NODE, 'web-http', status('critical'));
  web.setStatus(200);
  await untilCheck(second.catalog, NODE, 'web-http', status('passing'));
});
