// Property: every rule module (src/xds/transport/rules/) is a pure function of
// its input. Random streams (SotW and Delta, ADS and per-type, with and without
// TTL) are driven through the rules alone — no stream class, no gRPC — with
// random requests, ACKs, NACKs, stale nonces and resource changes. At every
// step every exported function of every rule module is called twice on the
// current state with inputs drawn from it, with all I/O, clocks and randomness
// trapped: both calls must give the same output, touch nothing, and leave the
// input unchanged. A rule module export without a probe here fails the test.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { BodyCache } from '../../../src/xds/transport/body-cache';
import { NO_INTERNING } from '../../../src/xds/transport/name-sets';
import type { XdsNode } from '../../../src/xds/transport/provider';
import { Clusters, RESOURCE_TYPES, type ResourceType, Routes } from '../../../src/xds/transport/resource-types';
import * as ack from '../../../src/xds/transport/rules/ack';
import * as decide from '../../../src/xds/transport/rules/decide';
import * as ordering from '../../../src/xds/transport/rules/ordering';
import * as response from '../../../src/xds/transport/rules/response';
import * as subscription from '../../../src/xds/transport/rules/subscription';
import * as ttl from '../../../src/xds/transport/rules/ttl';
import * as warming from '../../../src/xds/transport/rules/warming';
import {
  newStreamState,
  newTypeState,
  type StreamState,
  type Transport,
  type TypeState,
  type Variant,
} from '../../../src/xds/transport/stream-state';
import { TypeUrl } from '../../../src/xds/transport/type-urls';
import { cla, cluster, listener, route, TestProvider } from './helpers/fixtures';
import { withoutIo } from './helpers/no-io';

const MODULES = { ack, decide, ordering, response, subscription, ttl, warming } as const;
const NAMES = ['c1', 'c2', 'c3', 'l1', 'r1', 'r2'];
const name = fc.constantFrom(...NAMES);
const names = fc.array(fc.constantFrom(...NAMES, '*'), { maxLength: 3 });

type Op =
  | { op: 'sotw'; type: number; names: string[]; reply: 'ack' | 'nack' | 'stale' | 'none'; version: boolean }
  | {
      op: 'delta';
      type: number;
      subscribe: string[];
      unsubscribe: string[];
      reply: 'ack' | 'nack' | 'stale' | 'none';
      initial: string[];
    }
  | { op: 'change'; type: number; name: string; v: number }
  | { op: 'remove'; type: number; name: string }
  | { op: 'heartbeat' }
  | { op: 'window'; open: boolean }
  | { op: 'resume' };

const reply = fc.constantFrom('ack' as const, 'nack' as const, 'stale' as const, 'none' as const);
const typeIndex = fc.integer({ min: 0, max: 3 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('sotw' as const), type: typeIndex, names, reply, version: fc.boolean() }),
  fc.record({
    op: fc.constant('delta' as const),
    type: typeIndex,
    subscribe: names,
    unsubscribe: names,
    reply,
    initial: fc.array(name, { maxLength: 2 }),
  }),
  fc.record({ op: fc.constant('change' as const), type: typeIndex, name, v: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ op: fc.constant('remove' as const), type: typeIndex, name }),
  fc.constant({ op: 'heartbeat' as const }),
  fc.record({ op: fc.constant('window' as const), open: fc.boolean() }),
  fc.constant({ op: 'resume' as const }),
);

const streamArb = fc.record({
  variant: fc.constantFrom<Variant>('sotw', 'delta'),
  transport: fc.constantFrom<Transport>('ads', 'ads', 'CDS', 'EDS', 'LDS', 'RDS'),
  api: fc.constantFrom('v3' as const, 'v2' as const),
  features: fc.subarray([ttl.FEATURE_TTL, ttl.FEATURE_RESOURCE_IN_SOTW]),
  ttlMs: fc.constantFrom(0, 30_000),
  // As in a delivery (step-memo.ts): a nonce per response body, handed in by the context.
  sharedNonce: fc.boolean(),
});

function resourceOf(type: ResourceType, n: string, v: number) {
  if (type === Clusters) return cluster(n, v);
  if (type.short === 'EDS') return cla(n, [8080 + v]);
  if (type.short === 'LDS') return listener(n, v === 1 ? 'r1' : 'r2');
  return route(n, `c${v}`);
}

/** A plain picture of a value (sets and maps as sorted entries, class instances as their entries), to see whether a call changed it. */
function picture(v: unknown, seen = new Set<unknown>()): unknown {
  if (v === null || typeof v !== 'object') return typeof v === 'function' ? 'fn' : v;
  if (seen.has(v)) return '<cycle>';
  seen.add(v);
  if (v instanceof Uint8Array) return Buffer.from(v).toString('base64');
  if (v instanceof Map) return [...v].map(([k, x]) => [picture(k, seen), picture(x, seen)]);
  if (v instanceof Set) return [...v].map((x) => picture(x, seen));
  if (v instanceof Error) return { error: v.message };
  if (Symbol.iterator in v && !Array.isArray(v)) return [...(v as Iterable<unknown>)].map((x) => picture(x, seen));
  if (Array.isArray(v)) return v.map((x) => picture(x, seen));
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, picture(x, seen)]));
}

/** Calls `fn` twice with I/O trapped: same output, nothing touched, inputs unchanged. */
function pure(label: string, inputs: readonly unknown[], fn: () => unknown): void {
  const before = picture(inputs);
  const a = withoutIo(fn);
  const b = withoutIo(fn);
  assert.deepEqual(a.touched, [], `${label} touched ${a.touched.join(', ')}`);
  assert.deepEqual(picture(a.value), picture(b.value), `${label}: the same input gave a different output`);
  assert.deepEqual(picture(inputs), before, `${label} changed its input`);
}

/** The node probes ask resources for (the test provider serves every node alike). */
const PROBE_NODE: XdsNode = { id: 'n1', cluster: 'c', clientFeatures: [], userAgent: 'envoy' };

type Probe = (s: StreamState, st: TypeState, ctx: decide.RuleContext, label: string) => void;

/** One probe per export of every rule module (checked below), each calling it with inputs drawn from the current state. */
const PROBES: Record<string, Probe> = {
  'ack.setVersion': (_s, st, ctx, l) =>
    pure(l, [st], () => ack.setVersion(ctx.resources(st.type, PROBE_NODE).byName.values(), 5000)),
  'ack.nonceFor': (s, _st, _ctx, l) => pure(l, [s], () => ack.nonceFor(s.id, s.nonceSeq + 1)),
  'ack.settle': (_s, st, ctx, l) => {
    for (const error of [undefined, { code: 3, message: 'no' }]) {
      for (const open of [false, true])
        pure(l, [st], () =>
          ack.settle(
            st,
            { nonce: st.pending?.nonce ?? 'x', error, versionInfo: st.lastSentVersion, at: ctx.now },
            open,
          ),
        );
    }
  },
  'ack.withPending': (s, st, _ctx, l) =>
    pure(l, [st], () =>
      ack.withPending(
        st,
        { version: 'v', sent: new Map([['c1', '1']]), resources: undefined, heartbeat: false },
        'n',
        s.variant === 'sotw',
      ),
    ),
  'ack.heldOnReconnect': (s, st, ctx, l) =>
    pure(l, [st], () => ack.heldOnReconnect(st, st.lastSentVersion, ctx.resources(st.type, PROBE_NODE), s.ttlMs)),
  'ack.adoptInitialVersions': (_s, st, _ctx, l) =>
    pure(l, [st], () => ack.adoptInitialVersions(st, new Map([['c1', 'v1']]))),
  'subscription.applySotwNames': (_s, st, _ctx, l) =>
    pure(l, [st], () => subscription.applySotwNames(st.sub, st.type, ['c1', '*'])),
  'subscription.applyDeltaChange': (_s, st, _ctx, l) =>
    pure(l, [st], () => subscription.applyDeltaChange(st.sub, st.type, ['c2'], ['c1', '*'], !st.started)),
  'subscription.covers': (_s, st, ctx, l) =>
    pure(l, [st], () => NAMES.map((n) => subscription.covers(st.sub, ctx.resources(st.type, PROBE_NODE), n))),
  'subscription.coveredNames': (_s, st, ctx, l) =>
    pure(l, [st], () => subscription.coveredNames(st.sub, ctx.resources(st.type, PROBE_NODE))),
  'subscription.sendWholeSet': (_s, st, _ctx, l) => pure(l, [st], () => subscription.sendWholeSet(st)),
  'subscription.deltaSubscription': (_s, st, _ctx, l) =>
    pure(l, [st], () =>
      subscription.deltaSubscription(st, ['c1', 'r1'], ['c2', '*'], !st.started, new Map([['c1', 'x']]), NO_INTERNING),
    ),
  'response.computeSotw': (s, st, ctx, l) => {
    for (const holdRemovals of [false, true]) {
      const rctx = {
        set: ctx.resources(st.type, PROBE_NODE),
        ttlMs: s.ttlMs,
        sotwWrap: s.sotwWrap,
        holdRemovals,
        memo: ctx.memo,
        routeAllowed: (r: { name: string }) => r.name !== 'r2',
      };
      pure(l, [st], () => response.computeSotw(st, rctx));
    }
  },
  'response.computeDelta': (s, st, ctx, l) => {
    for (const holdRemovals of [false, true]) {
      const rctx = {
        set: ctx.resources(st.type, PROBE_NODE),
        ttlMs: s.ttlMs,
        sotwWrap: false,
        holdRemovals,
        memo: ctx.memo,
      };
      pure(l, [st], () => response.computeDelta(st, rctx));
    }
  },
  'ordering.waitsForClusters': (s, st, _ctx, l) => pure(l, [s], () => ordering.waitsForClusters(s, st.type)),
  'ordering.holdsRemovals': (s, st, _ctx, l) => pure(l, [s], () => ordering.holdsRemovals(s, st.type)),
  'warming.routeClusters': (_s, _st, ctx, l) =>
    pure(l, [], () => [...ctx.resources(Routes, PROBE_NODE).byName.values()].map((r) => warming.routeClusters(r))),
  'warming.routeGate': (s, st, ctx, l) =>
    pure(l, [s], () => {
      const gate = warming.routeGate(s, st.type, () => ctx.resources(Clusters, PROBE_NODE));
      return gate && [...ctx.resources(Routes, PROBE_NODE).byName.values()].map(gate);
    }),
  'warming.warmEndpoints': (s, st, ctx, l) =>
    pure(l, [s, st], () =>
      warming.warmEndpoints(
        s,
        st,
        new Map([
          ['c1', 'v9'],
          ['c2', null],
        ]),
        () => ctx.resources(RESOURCE_TYPES[1]!, PROBE_NODE),
      ),
    ),
  'ttl.clientTtl': (s, _st, _ctx, l) => pure(l, [s], () => s.node && ttl.clientTtl(s.api, s.node, 30_000)),
  'ttl.responseTtl': (s, _st, _ctx, l) => pure(l, [s], () => ttl.responseTtl(s)),
  'ttl.takesHeartbeats': (s, _st, _ctx, l) => pure(l, [s], () => ttl.takesHeartbeats(s)),
  'ttl.ttlTypesAdvice': (s, _st, _ctx, l) =>
    pure(l, [s], () => [[], ['EDS'], ['CDS', 'EDS']].map((types) => ttl.ttlTypesAdvice(s.ttlMs, types))),
  'ttl.heartbeatFor': (s, st, ctx, l) =>
    pure(l, [s, st], () => ttl.heartbeatFor(s, st, ctx.resources(st.type, PROBE_NODE))),
  'decide.onSotwRequest': (s, st, ctx, l) =>
    pure(l, [s], () =>
      decide.onSotwRequest(
        s,
        {
          versionInfo: st.lastSentVersion,
          node: undefined,
          resourceNames: ['c1'],
          typeUrl: st.wireTypeUrl,
          responseNonce: st.pending?.nonce ?? '',
          errorDetail: undefined,
        },
        ctx,
      ),
    ),
  'decide.onDeltaRequest': (s, st, ctx, l) =>
    pure(l, [s], () =>
      decide.onDeltaRequest(
        s,
        {
          node: undefined,
          typeUrl: st.wireTypeUrl,
          subscribe: ['c2'],
          unsubscribe: ['c1'],
          initialVersions: new Map(),
          responseNonce: st.pending?.nonce ?? '',
          errorDetail: { code: 13, message: 'x' },
        },
        ctx,
      ),
    ),
  'decide.resourcesChanged': (s, st, ctx, l) =>
    pure(l, [s], () => decide.resourcesChanged(s, st.type.typeUrl, new Set(['c1', 'r1']), ctx.now)),
  'decide.resumeDeferred': (s, _st, _ctx, l) => pure(l, [s], () => decide.resumeDeferred(s)),
  'decide.nextResponse': (s, _st, ctx, l) => pure(l, [s], () => decide.nextResponse(s, ctx)),
  'decide.nextHeartbeat': (s, _st, ctx, l) => pure(l, [s], () => decide.nextHeartbeat(s, ctx)),
};

const exported = () =>
  Object.entries(MODULES).flatMap(([m, mod]) =>
    Object.entries(mod)
      .filter(([, v]) => typeof v === 'function')
      .map(([k]) => `${m}.${k}`),
  );

test('every function a rule module exports has a purity probe', () => {
  assert.deepEqual(exported().sort(), Object.keys(PROBES).sort());
  // And the rule modules are all here.
  const files = readdirSync(join(__dirname, '../../../src/xds/transport/rules'))
    .map((f) => f.replace(/\.ts$/, ''))
    .sort();
  assert.deepEqual(files, Object.keys(MODULES).sort());
});

test('rule modules import nothing that does I/O: only other rules, the state and framing modules, and protobufjs for reading bytes', () => {
  const dir = join(__dirname, '../../../src/xds/transport/rules');
  const allowed =
    /^(\.\/\w+|\.\.\/(provider|held-versions|stream-state|name-sets|resource-types|type-urls|wire|body-cache)|\.\.\/\.\.\/\.\.\/errors|protobufjs|node:crypto)$/;
  for (const f of readdirSync(dir)) {
    for (const m of readFileSync(join(dir, f), 'utf8').matchAll(/^import (type )?.*? from '([^']+)';$/gm)) {
      if (m[1]) continue; // type-only imports carry no code
      assert.match(m[2]!, allowed, `${f} imports ${m[2]}`);
    }
  }
});

test('rule modules are pure: same input, same output, no I/O, input untouched (fast-check)', () => {
  // Protobuf types and the fixtures are built before anything is trapped.
  const warm = new TestProvider();
  for (const t of RESOURCE_TYPES) for (const n of NAMES) resourceOf(t, n, 1);
  void warm;
  fc.assert(
    fc.property(streamArb, fc.array(opArb, { minLength: 1, maxLength: 20 }), (cfg, ops) => {
      const provider = new TestProvider();
      provider.set(cluster('c1'), cla('c1'), listener('l1', 'r1'), route('r1', 'c1'), route('r2', 'c2'));
      let now = 1_000_000;
      const memo = new BodyCache();
      const node: XdsNode = { id: 'n1', cluster: 'c', clientFeatures: cfg.features, userAgent: 'envoy' };
      let windowOpen = false;
      const ctx = (): decide.RuleContext => ({
        resources: (t, n) => provider.get(t.typeUrl, n),
        memo,
        names: NO_INTERNING,
        now,
        resourceTtlMs: cfg.ttlMs,
        windowOpen,
        ...(cfg.sharedNonce ? { nonce: (body: Uint8Array) => `d${body.length}` } : {}),
      });
      let s: StreamState = newStreamState(7, cfg.variant, cfg.transport, cfg.api);
      const fixed = cfg.transport === 'ads' ? undefined : RESOURCE_TYPES.find((t) => t.short === cfg.transport);
      const typeAt = (i: number) => fixed ?? RESOURCE_TYPES[i]!;
      const wire = (t: ResourceType) => (cfg.api === 'v3' ? t.typeUrl : t.v2TypeUrl);
      // Every step's state goes through every probe; the step itself is a rule call too.
      const probeAll = () => {
        const types = s.types.size > 0 ? [...s.types.values()] : [newTypeState(typeAt(0), wire(typeAt(0)))];
        for (const st of types) for (const [label, probe] of Object.entries(PROBES)) probe(s, st, ctx(), label);
      };
      const step = <T extends { state: StreamState }>(label: string, f: () => T): T => {
        const c = ctx();
        let out: T | undefined;
        pure(label, [s], () => (out = f()));
        void c;
        s = out!.state;
        return out!;
      };
      const drain = () => {
        for (let i = 0; i < 10; i++)
          if (!step('decide.nextResponse', () => decide.nextResponse(s, ctx())).response) return;
        assert.fail('more than 10 responses in one flush');
      };
      for (const op of ops) {
        now += 1000;
        if (op.op === 'window') {
          windowOpen = op.open;
          continue;
        }
        if (op.op === 'resume') s = decide.resumeDeferred(s);
        const type = typeAt(op.op === 'heartbeat' || op.op === 'resume' ? 0 : op.type);
        const st = s.types.get(type.typeUrl);
        const nonce =
          op.op === 'sotw' || op.op === 'delta'
            ? op.reply === 'stale'
              ? 'stale-nonce'
              : op.reply === 'none'
                ? ''
                : (st?.pending?.nonce ?? '')
            : '';
        const errorDetail =
          (op.op === 'sotw' || op.op === 'delta') && op.reply === 'nack' ? { code: 3, message: 'rejected' } : undefined;
        if (op.op === 'sotw') {
          const req = {
            versionInfo: op.version ? (st?.lastSentVersion ?? '') : '',
            node,
            resourceNames: op.names,
            typeUrl: wire(type),
            responseNonce: nonce,
            errorDetail,
          };
          if (cfg.variant === 'sotw') step('decide.onSotwRequest', () => decide.onSotwRequest(s, req, ctx()));
        } else if (op.op === 'delta') {
          const req = {
            node,
            typeUrl: wire(type),
            subscribe: op.subscribe,
            unsubscribe: op.unsubscribe,
            initialVersions: new Map(op.initial.map((n) => [n, 'old'])),
            responseNonce: nonce,
            errorDetail,
          };
          if (cfg.variant === 'delta') step('decide.onDeltaRequest', () => decide.onDeltaRequest(s, req, ctx()));
        } else if (op.op === 'change') {
          provider.set(resourceOf(type, op.name, op.v));
          s = decide.resourcesChanged(s, type.typeUrl, new Set([op.name]), now);
        } else if (op.op === 'remove') {
          provider.remove(type.typeUrl, op.name);
          s = decide.resourcesChanged(s, type.typeUrl, new Set([op.name]), now);
        } else if (op.op === 'heartbeat') {
          for (let i = 0; i < 5; i++)
            if (!step('decide.nextHeartbeat', () => decide.nextHeartbeat(s, ctx())).response) break;
        }
        drain();
        probeAll();
      }
    }),
    { numRuns: 60 },
  );
});

test('the purity check can fail: a rule that reads the clock or changes its input is caught', () => {
  assert.throws(() => pure('clock', [], () => Date.now()), /touched Date.now/);
  assert.throws(() => pure('timer', [], () => setTimeout(() => undefined, 1)), /touched globalThis.setTimeout/);
  const input = { n: 1 };
  assert.throws(() => pure('mutates', [input], () => ++input.n), /different output|changed its input/);
  assert.equal(TypeUrl.Cluster, Clusters.typeUrl);
});
