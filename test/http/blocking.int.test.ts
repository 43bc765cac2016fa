// Blocking queries: ?index=N&wait=D returns when the read's own data changes
// past N, or when the wait ends; writes elsewhere do not answer it.

import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { buildHttpApp } from '../../src/http/app';
import type { Hub } from '../../src/hub';
import { createLogger } from '../../src/logger';
import { createMetrics } from '../../src/metrics';
import { type Answer, call, startHub } from '../helpers/hub';

let hub: Hub;
before(async () => {
  hub = await startHub();
});
after(() => hub.close());

const register = (node: string, service: string, port: number) =>
  call(hub, 'PUT', '/v1/catalog/register', {
    Node: node,
    Address: '10.9.0.1',
    Service: { Service: service, Port: port },
  });

/** A pending request plus a flag saying whether it has answered yet. */
function pending(url: string): { done: () => boolean; answer: Promise<Answer> } {
  let settled = false;
  const answer = call(hub, 'GET', url).finally(() => (settled = true));
  return { done: () => settled, answer };
}

test('a write to the data read wakes the query; a write to other data does not', async () => {
  await register('b1', 'alpha', 1);
  await register('b2', 'beta', 1);
  const first = await call(hub, 'GET', '/v1/health/service/alpha');
  const waiting = pending(`/v1/health/service/alpha?index=${first.index}&wait=5m`);

  const other = await register('b2', 'beta', 2);
  assert.ok(other.index > first.index);
  // A full round trip through the app after the unrelated write: had it woken the query, it would have answered by now.
  await call(hub, 'GET', '/v1/status/leader');
  assert.equal(waiting.done(), false, 'an unrelated write answered the blocking query');

  const mine = await register('b1', 'alpha', 2);
  const res = await waiting.answer;
  assert.equal(res.status, 200);
  assert.equal(res.index, mine.index);
  assert.equal(res.json[0].Service.Port, 2);
});

test('every blocking read endpoint wakes on its own data', async () => {
  const cases: Array<[string, () => Promise<unknown>]> = [
    ['/v1/catalog/services', () => register('b3', 'gamma', 1)],
    ['/v1/catalog/service/gamma', () => register('b3', 'gamma', 2)],
    ['/v1/catalog/nodes', () => register('b4', 'delta', 1)],
    ['/v1/catalog/node/b4', () => register('b4', 'delta', 2)],
    [
      '/v1/health/checks/gamma',
      () =>
        call(hub, 'PUT', '/v1/catalog/register', {
          Node: 'b3',
          Address: '10.9.0.1',
          Check: { CheckID: 'g', ServiceID: 'gamma', Status: 'passing' },
        }),
    ],
    [
      '/v1/health/node/b3',
      () =>
        call(hub, 'PUT', '/v1/catalog/register', {
          Node: 'b3',
          Address: '10.9.0.1',
          Check: { CheckID: 'g', ServiceID: 'gamma', Status: 'warning' },
        }),
    ],
    [
      '/v1/health/state/warning',
      () =>
        call(hub, 'PUT', '/v1/catalog/register', {
          Node: 'b3',
          Address: '10.9.0.1',
          Check: { CheckID: 'g2', ServiceID: 'gamma', Status: 'warning' },
        }),
    ],
    [
      '/v1/config/service-defaults',
      () => call(hub, 'PUT', '/v1/config', { Kind: 'service-defaults', Name: 'gamma', Protocol: 'http' }),
    ],
    [
      '/v1/config/service-defaults/gamma',
      () => call(hub, 'PUT', '/v1/config', { Kind: 'service-defaults', Name: 'gamma', Protocol: 'grpc' }),
    ],
    ['/v1/agent/services', () => call(hub, 'PUT', '/v1/agent/service/register', { Name: 'agent-svc' })],
    [
      '/v1/agent/checks',
      () => call(hub, 'PUT', '/v1/agent/service/register', { Name: 'agent-svc', Check: { TTL: '1h' } }),
    ],
  ];
  for (const [url, write] of cases) {
    const first = await call(hub, 'GET', url);
    assert.equal(first.status, 200, `${url}: ${first.text}`);
    const waiting = pending(`${url}${url.includes('?') ? '&' : '?'}index=${first.index}&wait=5m`);
    await write();
    const res = await waiting.answer;
    assert.equal(res.status, 200, url);
    assert.ok(res.index > first.index, `${url}: index ${res.index} should pass ${first.index}`);
    assert.notEqual(res.text, first.text, url);
  }
});

test('when the wait ends the query answers with the current data and the same index', async () => {
  const first = await call(hub, 'GET', '/v1/catalog/service/alpha');
  const res = await call(hub, 'GET', `/v1/catalog/service/alpha?index=${first.index}&wait=150ms`);
  assert.equal(res.status, 200);
  assert.equal(res.index, first.index);
  assert.equal(res.text, first.text);
});

test('index=0 and an index from the future answer at once', async () => {
  const now = await call(hub, 'GET', '/v1/catalog/services?index=0&wait=10m');
  assert.equal(now.status, 200);
  const future = await call(hub, 'GET', `/v1/catalog/services?index=${hub.catalog.lastIndex() + 1000n}&wait=10m`);
  assert.equal(future.status, 200);
  assert.equal(future.index, now.index);
});

test('closing the app answers blocking queries in flight (over a real socket)', async () => {
  // The app over a catalog that says when a blocking query starts waiting, so close() comes after it.
  let startedWaiting!: () => void;
  const waitingNow = new Promise<void>((resolve) => (startedWaiting = resolve));
  const catalog = new Proxy(hub.catalog, {
    get(target, prop, receiver) {
      if (prop === 'waitForChange') {
        return (watch: readonly string[] | undefined, signal?: AbortSignal) => {
          startedWaiting();
          return target.waitForChange(watch, signal);
        };
      }
      const value = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const app = buildHttpApp({
    catalog,
    config: hub.config,
    logger: createLogger('silent'),
    metrics: createMetrics({ defaultMetrics: false }),
    views: hub.views,
    viewTarget: hub.viewTarget,
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  const first = await fetch(`http://127.0.0.1:${port}/v1/catalog/nodes`);
  const index = first.headers.get('x-consul-index');
  await first.arrayBuffer();
  const waiting = fetch(`http://127.0.0.1:${port}/v1/catalog/nodes?index=${index}&wait=10m`);
  await waitingNow;
  const closed = app.close();
  const res = await waiting;
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('x-consul-index'), index);
  await res.arrayBuffer();
  await closed;
});

test('a client that disconnects ends its wait (the abort reaches the catalog wait)', async () => {
  let handedSignal!: (signal: AbortSignal) => void;
  const signalSeen = new Promise<AbortSignal>((resolve) => (handedSignal = resolve));
  const catalog = new Proxy(hub.catalog, {
    get(target, prop, receiver) {
      if (prop === 'waitForChange') {
        return (watch: readonly string[] | undefined, signal?: AbortSignal) => {
          if (signal) handedSignal(signal);
          return target.waitForChange(watch, signal);
        };
      }
      const value = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const app = buildHttpApp({
    catalog,
    config: hub.config,
    logger: createLogger('silent'),
    metrics: createMetrics({ defaultMetrics: false }),
    views: hub.views,
    viewTarget: hub.viewTarget,
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  try {
    const { port } = app.server.address() as AddressInfo;
    const index = hub.catalog.nodes().index;
    const client = new AbortController();
    const waiting = fetch(`http://127.0.0.1:${port}/v1/catalog/nodes?index=${index}&wait=10m`, {
      signal: client.signal,
    });
    const signal = await signalSeen;
    assert.equal(signal.aborted, false);
    const aborted = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    client.abort();
    await assert.rejects(waiting);
    await aborted;
    assert.equal(signal.aborted, true);
  } finally {
    await app.close();
  }
});
