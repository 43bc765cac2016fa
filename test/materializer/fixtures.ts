// Catalog values and stream items for the materializer's tests.
import {
  type CatalogEvent,
  type CheckServiceNode,
  CONFIG_TOPIC_BY_KIND,
  type ConfigEntry,
  type HealthStatus,
  SUBJECT_NONE,
  Topic,
} from '../../src/catalog/types';
import type { Backoff } from '../../src/materializer/backoff';
import { createBackoff } from '../../src/materializer/backoff';
import type { StreamItem } from '../../src/subscribe/types';

export function csn(
  service: string,
  id: string,
  node: string,
  opts: { index?: number; tags?: string[]; status?: HealthStatus; port?: number } = {},
): CheckServiceNode {
  const index = opts.index ?? 1;
  return {
    Node: {
      ID: '',
      Node: node,
      Address: '10.0.0.1',
      Datacenter: 'dc1',
      TaggedAddresses: { lan: '10.0.0.1' },
      Meta: { rack: 'r1' },
      CreateIndex: index,
      ModifyIndex: index,
    },
    Service: {
      Kind: '',
      ID: id,
      Service: service,
      Tags: opts.tags ?? [],
      Address: '',
      TaggedAddresses: {},
      Meta: {},
      Port: opts.port ?? 8080,
      Weights: { Passing: 1, Warning: 1 },
      EnableTagOverride: false,
      CreateIndex: index,
      ModifyIndex: index,
    },
    Checks: [
      {
        Node: node,
        CheckID: `service:${id}`,
        Name: 'alive',
        Status: opts.status ?? 'passing',
        Notes: '',
        Output: 'ok',
        ServiceID: id,
        ServiceName: service,
        ServiceTags: opts.tags ?? [],
        Type: 'ttl',
        Interval: '',
        Timeout: '',
        Definition: { TTL: '30s' },
        CreateIndex: index,
        ModifyIndex: index,
      },
    ],
  };
}

export function health(index: number, op: 'register' | 'deregister', c: CheckServiceNode): CatalogEvent {
  return {
    topic: Topic.ServiceHealth,
    subject: c.Service.Service.toLowerCase(),
    index: BigInt(index),
    payload: { type: 'service-health', op, csn: c },
  };
}

export function config(index: number, op: 'upsert' | 'delete', entry: ConfigEntry): CatalogEvent {
  return {
    topic: CONFIG_TOPIC_BY_KIND[entry.Kind],
    subject: `default/default/${entry.Name}`,
    index: BigInt(index),
    payload: { type: 'config-entry', op, entry },
  };
}

export function serviceName(index: number, op: 'register' | 'deregister', name: string): CatalogEvent {
  return {
    topic: Topic.ServiceList,
    subject: SUBJECT_NONE,
    index: BigInt(index),
    payload: { type: 'service-list', op, name, namespace: 'default', partition: 'default' },
  };
}

export function resolver(name: string, index: number, extra: Record<string, unknown> = {}): ConfigEntry {
  return { Kind: 'service-resolver', Name: name, CreateIndex: index, ModifyIndex: index, ...extra };
}

export const items = (index: number, ...events: CatalogEvent[]): StreamItem => ({
  kind: 'events',
  index: BigInt(index),
  events,
});
export const eos = (index: number): StreamItem => ({ kind: 'end-of-snapshot', index: BigInt(index) });
export const nstf: StreamItem = { kind: 'new-snapshot-to-follow' };

/** A backoff that records each delay it hands out, with a 1 ms base so retries stay quick. */
export function recordingBackoff(): Backoff & { delays: number[] } {
  const inner = createBackoff({ baseMs: 1, maxMs: 20, random: () => 0.5 });
  const delays: number[] = [];
  return {
    delays,
    next() {
      const d = inner.next();
      delays.push(d);
      return d;
    },
    reset: () => inner.reset(),
    get failures() {
      return inner.failures;
    },
  };
}

/** Whether every object reachable from value is frozen. */
export function isDeepFrozen(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (!Object.isFrozen(value)) return false;
  if (value instanceof Map) return [...value.values()].every(isDeepFrozen);
  return Object.values(value).every(isDeepFrozen);
}
