// The harness of the materializer's central property (property.int.test.ts):
// runs a plan of commands (with restores) through the real catalog, memory log
// and publisher, with faults injected into the source, and checks every view
// result against the state machine's answer at the result's index.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import pino from 'pino';
import { type Command, createCatalog, createStateMachine, type StateMachine } from '../../src/catalog/index';
import { type CheckServiceNode, Topic } from '../../src/catalog/types';
import { HubError } from '../../src/errors';
import { createMemoryLog } from '../../src/log/memory';
import { createMaterializer, type Materializer } from '../../src/materializer/materializer';
import type { Source } from '../../src/materializer/source';
import { inProcessSource } from '../../src/materializer/sources/in-process';
import type { ViewResult } from '../../src/materializer/types';
import { configEntriesView } from '../../src/materializer/views/config-entries';
import { healthView } from '../../src/materializer/views/health';
import { serviceListView } from '../../src/materializer/views/service-list';
import { createPublisher } from '../../src/subscribe/publisher';
import type { Publisher, SubscribeRequest } from '../../src/subscribe/types';
import { command } from '../catalog/arbitraries';
import { nodeInput, serviceInput } from '../catalog/fixtures';
import { isDeepFrozen, recordingBackoff } from './fixtures';

const silent = pino({ level: 'silent' });

export type Fault = { after: number; kind: 'reset' | 'drop' };
export type Step = { cmd: Command } | { restoreTo: number };

/** Wraps a source so the next subscriptions fail after a few items, as scripted. */
function faultySource(inner: Source, faults: Fault[]): Source {
  return {
    subscribe(request, signal) {
      const fault = faults.shift();
      return {
        async *[Symbol.asyncIterator]() {
          let n = 0;
          for await (const item of inner.subscribe(request, signal)) {
            if (fault && n++ === fault.after) {
              throw fault.kind === 'reset'
                ? new HubError('SUBSCRIPTION_RESET', 'injected reset')
                : new HubError('SHUTTING_DOWN', 'injected drop');
            }
            yield item;
          }
        },
      };
    },
    close: () => inner.close(),
  };
}

interface Probe {
  name: string;
  m: Materializer<readonly unknown[]>;
  /** The state machine's answer for this view, now. */
  answer(sm: StateMachine): readonly unknown[];
}

const passingWithX = (c: CheckServiceNode) =>
  c.Service.Tags.some((t) => t.toLowerCase() === 'x') && c.Checks.every((k) => k.Status === 'passing');

export const steps = fc.array(
  fc.oneof(
    { weight: 12, arbitrary: command.map((cmd): Step => ({ cmd })) },
    { weight: 1, arbitrary: fc.nat().map((n): Step => ({ restoreTo: n })) },
  ),
  { minLength: 1, maxLength: 30 },
);
export const faults = fc.array(
  fc.record({ after: fc.nat({ max: 6 }), kind: fc.constantFrom<Fault['kind']>('reset', 'drop') }),
  { maxLength: 12 },
);

/** How the views reach the publisher: straight (default) or through something like a gRPC server. */
export type SourceFactory = (publisher: Publisher) => Promise<{ source: Source; close(): void }>;

const direct: SourceFactory = async (publisher) => ({ source: inProcessSource(publisher), close() {} });

export async function check(
  plan: Step[],
  faultPlan: Fault[],
  snapshotCacheTtlMs: number,
  makeSource: SourceFactory = direct,
): Promise<void> {
  const catalog = await createCatalog({ log: createMemoryLog(), logger: silent });
  const publisher = createPublisher({ catalog, snapshotCacheTtlMs, logger: silent });
  const transport = await makeSource(publisher);
  const source = faultySource(transport.source, [...faultPlan]);
  const ref = createStateMachine();
  const snapshots: string[] = [ref.snapshot()];
  /** index → (probe name → answer) */
  const answers = new Map<bigint, Map<string, readonly unknown[]>>();
  const handedOut: { probe: string; result: ViewResult<readonly unknown[]>; copy: unknown }[] = [];
  const ac = new AbortController();

  const mk = <T>(
    name: string,
    request: Omit<SubscribeRequest, 'token' | 'index'>,
    view: ReturnType<typeof healthView> | ReturnType<typeof serviceListView> | ReturnType<typeof configEntriesView>,
    answer: (sm: StateMachine) => readonly T[],
  ): Probe => ({
    name,
    m: createMaterializer({
      source,
      request: { ...request, token: '', index: 0n },
      view: view as never,
      backoff: recordingBackoff(),
    }),
    answer,
  });
  const probes: Probe[] = [
    mk(
      'web',
      { topic: Topic.ServiceHealth, subject: { key: 'web' } },
      healthView({ service: 'web' }),
      (sm) => sm.serviceInstances('web').value,
    ),
    mk(
      'Db',
      { topic: Topic.ServiceHealth, subject: { key: 'Db' } },
      healthView({ service: 'Db' }),
      (sm) => sm.serviceInstances('Db').value,
    ),
    mk(
      'web?tag=x&passing',
      { topic: Topic.ServiceHealth, subject: { key: 'web' } },
      healthView({ service: 'web', tags: ['X'], passingOnly: true }),
      (sm) => sm.serviceInstances('web').value.filter(passingWithX),
    ),
    mk(
      'services',
      { topic: Topic.ServiceList, subject: { wildcard: true } },
      serviceListView(),
      (sm) => sm.serviceNames().value,
    ),
    mk(
      'resolvers',
      { topic: Topic.ServiceResolver, subject: { wildcard: true } },
      configEntriesView({ kind: 'service-resolver' }),
      (sm) => sm.configEntries('service-resolver').value,
    ),
    mk(
      'mesh/a',
      { topic: Topic.MeshConfig, subject: { key: 'a' } },
      configEntriesView({ kind: 'mesh', name: 'a' }),
      (sm) => {
        const e = sm.configEntry('mesh', 'a').value;
        return e ? [e] : [];
      },
    ),
  ];
  let runs: Promise<void>[] = [];

  function record(index: bigint): void {
    answers.set(index, new Map(probes.map((p) => [p.name, structuredClone(p.answer(ref))])));
  }
  function observe(): void {
    for (const p of probes) {
      const r = p.m.current();
      if (!p.m.ready()) continue;
      const want = answers.get(r.index)?.get(p.name);
      assert.ok(want !== undefined, `${p.name}: result at index ${r.index}, which no entry produced`);
      assert.deepEqual(r.value, want, `${p.name} at index ${r.index}`);
      handedOut.push({ probe: p.name, result: r, copy: structuredClone(r.value) });
    }
  }
  async function submit(cmd: Command): Promise<bigint> {
    const res = await catalog.submit(cmd);
    // Refused and no-op commands are answered without an entry (index unchanged): nothing to mirror.
    if (res.index > ref.lastIndex()) {
      ref.apply(res.index, cmd);
      record(res.index);
      snapshots.push(ref.snapshot());
    }
    observe();
    return res.index;
  }

  // The generators give entries a made-up `Value` field, which no Consul wire
  // message has; carry it in Meta (a field of every kind) so it survives gRPC.
  const wireSafe = (cmd: Command): Command => {
    if (cmd.type !== 'config-set' || !('Value' in cmd.entry)) return cmd;
    const { Value, ...entry } = cmd.entry;
    return { ...cmd, entry: { ...entry, Meta: { v: String(Value) } } };
  };

  try {
    record(0n);
    // The publisher reports a snapshot of an empty catalog at index 1 (Consul's
    // clamp), so for a moment a view claims index 1 with the state at 0; the
    // materializer repairs it when entry 1 arrives (materializer.test.ts), but
    // the property is about states at real indexes: start on a non-empty catalog.
    await submit({ type: 'register', node: nodeInput('seed'), checks: [], skipNodeUpdate: false });
    runs = probes.map((p) => p.m.run(ac.signal));
    for (const step of plan) {
      if ('cmd' in step) await submit(wireSafe(step.cmd));
      else await submit({ type: 'restore', state: snapshots[step.restoreTo % snapshots.length]! });
      // Let deliveries interleave with the writes.
      await new Promise((resolve) => setImmediate(resolve));
      observe();
    }
    // Sentinels touch every view, so each must reach at least their index.
    const t = await submit({
      type: 'txn',
      ops: [
        { op: 'node-set', node: nodeInput('zz') },
        { op: 'service-set', node: 'zz', service: serviceInput('zz1', 'web', { Tags: ['x'] }) },
        { op: 'service-set', node: 'zz', service: serviceInput('zz2', 'Db') },
        { op: 'service-set', node: 'zz', service: serviceInput('zz3', 'sentinel') },
      ],
    });
    const r = await submit({ type: 'config-set', entry: { Kind: 'service-resolver', Name: 'zz' } });
    const mesh = await submit({ type: 'config-set', entry: { Kind: 'mesh', Name: 'a', Meta: { v: '99' } } });
    const target: Record<string, bigint> = {
      web: t,
      Db: t,
      'web?tag=x&passing': t,
      services: t,
      resolvers: r,
      'mesh/a': mesh,
    };
    for (const p of probes) {
      const res = await p.m.waitFor(target[p.name]! - 1n);
      assert.ok(res.index >= target[p.name]!, `${p.name} reached ${res.index}, wanted ${target[p.name]}`);
    }
    observe();
    for (const h of handedOut) {
      assert.ok(isDeepFrozen(h.result), `${h.probe} result at ${h.result.index} is frozen`);
      assert.deepEqual(h.result.value, h.copy, `${h.probe} result at ${h.result.index} never changed`);
    }
  } finally {
    ac.abort();
    await Promise.allSettled(runs);
    transport.close();
    publisher.close();
    await catalog.close();
  }
}
