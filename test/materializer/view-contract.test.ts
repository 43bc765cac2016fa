// The View contract (view-contract.ts) against every View implementation:
// health, service list and config entries.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { CatalogEvent } from '../../src/catalog/types';
import { Topic } from '../../src/catalog/types';
import type { View } from '../../src/materializer/view';
import { configEntriesView } from '../../src/materializer/views/config-entries';
import { healthView } from '../../src/materializer/views/health';
import { serviceListView } from '../../src/materializer/views/service-list';
import { config, csn, health, resolver, serviceName } from './fixtures';
import { checkImmutability, viewContract } from './view-contract';

viewContract('health', {
  make: () => healthView({ service: 'web' }),
  request: { topic: Topic.ServiceHealth, subject: { key: 'web' }, token: '', index: 0n },
  event: fc
    .record({
      op: fc.constantFrom('register' as const, 'deregister' as const),
      id: fc.constantFrom('a', 'b', 'c'),
      node: fc.constantFrom('n1', 'n2'),
      status: fc.constantFrom('passing' as const, 'warning' as const, 'critical' as const),
      port: fc.integer({ min: 1, max: 3 }),
    })
    .map(
      (e) => (index: number) =>
        health(index, e.op, csn('web', e.id, e.node, { index, status: e.status, port: 8080 + e.port })),
    ),
});

viewContract('service list', {
  make: () => serviceListView(),
  request: { topic: Topic.ServiceList, subject: { wildcard: true }, token: '', index: 0n },
  event: fc
    .record({
      op: fc.constantFrom('register' as const, 'deregister' as const),
      name: fc.constantFrom('web', 'api', 'db'),
    })
    .map((e) => (index: number) => serviceName(index, e.op, e.name)),
});

viewContract('config entries', {
  make: () => configEntriesView({ kind: 'service-resolver' }),
  request: { topic: Topic.ServiceResolver, subject: { wildcard: true }, token: '', index: 0n },
  event: fc
    .record({
      op: fc.constantFrom('upsert' as const, 'delete' as const),
      name: fc.constantFrom('web', 'api', 'db'),
      timeout: fc.constantFrom('1s', '5s'),
    })
    .map((e) => (index: number) => config(index, e.op, resolver(e.name, index, { ConnectTimeout: e.timeout }))),
});

test('the View contract can fail: a view that hands out its own mutable state is caught', () => {
  const leaky = (): View<string[]> => {
    const names: string[] = [];
    return {
      update: (events: readonly CatalogEvent[]) => events.forEach((e) => names.push(String(e.index))),
      result: () => names,
      reset: () => void names.splice(0),
    };
  };
  const event = fc.constant((index: number) => serviceName(index, 'register', 'web'));
  assert.throws(
    () =>
      checkImmutability(
        {
          make: leaky,
          request: { topic: Topic.ServiceList, subject: { wildcard: true }, token: '', index: 0n },
          event,
        },
        5,
      ),
    /Property failed/,
  );
});
