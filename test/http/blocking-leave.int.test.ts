// Blocking queries whose clients leave build no answer: no re-read of the
// catalog, no serialization of the result, for catalog reads and view reads
// alike. Each such answer cost about 1 ms for a large read, so thousands
// leaving at once held the next write back for seconds (bench/blocking.ts --leave).
// Real sockets on loopback against an in-process hub.
import assert from 'node:assert/strict';
import { Agent, type IncomingMessage, request, type ServerResponse } from 'node:http';
import { after, before, test } from 'node:test';
import { DEFAULTS } from '../../src/config';
import type { Hub } from '../../src/hub';
import { call, startHub } from '../helpers/hub';
import { until } from '../helpers/until';

const WAITERS = 200;

let hub: Hub;
/** Status and body size of every answer written to a blocking query's socket. */
const answers: Array<{ status: number; bytes: number }> = [];

before(async () => {
  const limits = { ...DEFAULTS.limits, httpMaxBlockingPerClient: 10 * WAITERS };
  hub = await startHub({ nodeName: 'hub-leave', limits });
  for (let i = 0; i < 50; i++) {
    const res = await call(hub, 'PUT', '/v1/catalog/register', {
      Node: `node-${i}`,
      Address: `10.1.0.${i}`,
      Service: { ID: `svc-${i}`, Service: 'svc', Port: 80 },
    });
    assert.equal(res.status, 200, res.text);
  }
  hub.http.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (!req.url?.includes('index=')) return;
    const end = res.end.bind(res) as (chunk?: unknown, ...rest: unknown[]) => ServerResponse;
    res.end = ((chunk?: unknown, ...rest: unknown[]) => {
      const bytes = typeof chunk === 'string' || Buffer.isBuffer(chunk) ? Buffer.byteLength(chunk) : 0;
      answers.push({ status: res.statusCode, bytes });
      return end(chunk, ...rest);
    }) as ServerResponse['end'];
  });
});
after(() => hub.close());

/** Counts calls of `obj[name]` until the test ends; `reached(n)` resolves once n calls were made. */
interface CallCount {
  calls(): number;
  reached(n: number): Promise<void>;
}

function countCalls<O extends object>(obj: O, name: keyof O & string): CallCount {
  const target = obj as Record<string, unknown>;
  const original = target[name] as (...args: unknown[]) => unknown;
  let calls = 0;
  const targets: Array<[number, () => void]> = [];
  target[name] = (...args: unknown[]) => {
    calls++;
    for (const [n, resolve] of targets) if (calls >= n) resolve();
    return original.apply(obj, args);
  };
  after(() => (target[name] = original));
  return {
    calls: () => calls,
    reached: (n) => new Promise((resolve) => (calls >= n ? resolve() : targets.push([n, resolve]))),
  };
}

/** Sends `count` GETs of `path`, one socket each, answers ignored; destroying the agent drops them all. */
function openMany(path: string, count: number, agent: Agent): void {
  const port = new URL(hub.httpUrl).port;
  for (let i = 0; i < count; i++) {
    const req = request({ host: '127.0.0.1', port, path, agent }, (res) => res.resume());
    req.on('error', () => undefined); // the sockets are destroyed on purpose
    req.end();
  }
}

test(`${WAITERS} catalog and ${WAITERS} view blocking queries leaving at once get nothing built`, async () => {
  const nodes = await call(hub, 'GET', '/v1/catalog/nodes');
  const service = await call(hub, 'GET', '/v1/health/service/svc');
  assert.equal(service.json.length, 50);
  const reads = countCalls(hub.catalog, 'nodes');
  const viewGets = countCalls(hub.views, 'get');
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  openMany(`/v1/catalog/nodes?index=${nodes.index}&wait=5m`, WAITERS, agent);
  openMany(`/v1/health/service/svc?index=${service.index}&wait=5m`, WAITERS, agent);
  // Each catalog query reads once before it parks; each view query asks its view once.
  await Promise.all([reads.reached(WAITERS), viewGets.reached(WAITERS)]);
  agent.destroy();
  await until(() => answers.length === 2 * WAITERS, { what: () => `${2 * WAITERS} answers (saw ${answers.length})` });

  assert.equal(reads.calls(), WAITERS, 'no catalog query re-read the catalog after its client left');
  const statuses = new Map<number, number>();
  for (const a of answers) statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
  assert.deepEqual([...statuses], [[499, 2 * WAITERS]], 'every answer is the short "client closed request"');
  assert.ok(
    answers.every((a) => a.bytes < 100),
    'no answer carries a serialized result',
  );

  // The hub serves on: a write, then a blocking query woken by it.
  const later = call(hub, 'GET', `/v1/catalog/nodes?index=${nodes.index}&wait=5m`);
  const write = await call(hub, 'PUT', '/v1/catalog/register', { Node: 'node-new', Address: '10.2.0.1' });
  assert.equal(write.status, 200, write.text);
  assert.equal((await later).json.length, 52, "the 50 nodes, the hub's own and node-new");
});
