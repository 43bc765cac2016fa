// Properties of the state machine over random command sequences (fast-check).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import type { CatalogReader, Indexed } from '../../src/catalog/catalog';
import type { Command } from '../../src/catalog/commands';
import { connectSubject } from '../../src/catalog/events';
import { type Applied, createStateMachine, type StateMachine } from '../../src/catalog/state';
import { type CatalogEvent, type CheckServiceNode, Topic } from '../../src/catalog/types';
import { CHECK_IDS, commands, ENTRY_NAMES, KINDS, NODES, resolveCurrent, SERVICE_NAMES } from './arbitraries';

const RUNS = { numRuns: 100 };

/** The snapshot without its last-index field: what "state unchanged" compares. */
const content = (snapshot: string) => snapshot.replace(/"index":"\d+"/, '');

/** Applies the commands in order, resolving CURRENT placeholders; returns what was actually applied. */
function run(cmds: readonly Command[]): { applied: Applied[]; sm: StateMachine; log: Command[] } {
  const sm = createStateMachine();
  const log: Command[] = [];
  const applied = cmds.map((c, i) => {
    const resolved = resolveCurrent(sm, c);
    log.push(resolved);
    return sm.apply(BigInt(i + 1), resolved);
  });
  return { applied, sm, log };
}

/** Every read the HTTP layer can make over the test universe. */
function reads(r: CatalogReader): unknown[] {
  const out: unknown[] = [
    r.lastIndex(),
    r.nodes(),
    r.services(),
    r.serviceNames(),
    r.checksInState('any'),
    r.checksInState('critical'),
  ];
  for (const n of [...NODES, 'ghost']) out.push(r.node(n), r.nodeChecks(n));
  for (const s of [...SERVICE_NAMES, 'ghost']) out.push(r.serviceInstances(s), r.serviceChecks(s));
  for (const k of KINDS) {
    out.push(r.configEntries(k));
    for (const n of ENTRY_NAMES) out.push(r.configEntry(k, n));
  }
  out.push(r.ttlCheckStates());
  for (const n of NODES) for (const c of CHECK_IDS) out.push(r.ttlCheck(n, c));
  return out;
}

test('(a) replaying the same log (through JSON, as the log stores it) gives identical snapshots and events', () => {
  fc.assert(
    fc.property(commands, (cmds) => {
      const first = run(cmds);
      const replay = run(first.log.map((c) => JSON.parse(JSON.stringify(c)) as Command));
      assert.equal(replay.sm.snapshot(), first.sm.snapshot());
      assert.deepEqual(replay.applied, first.applied);
    }),
    RUNS,
  );
});

test('(a2) applying each entry as its own parse (owned: its objects may be stored as they are) gives what applying a copy gives', () => {
  fc.assert(
    fc.property(commands, (cmds) => {
      const plain = run(cmds);
      const sm = createStateMachine();
      const applied = plain.log.map((c, i) => sm.apply(BigInt(i + 1), JSON.parse(JSON.stringify(c)) as Command, true));
      assert.equal(sm.snapshot(), plain.sm.snapshot());
      assert.deepEqual(applied, plain.applied);
      assert.deepEqual(reads(sm), reads(plain.sm));
    }),
    RUNS,
  );
});

test('(a3) an owned entry with numbers JSON cannot hold (1e400, -0) is stored as its JSON copy would be', () => {
  const payload =
    '{"type":"register","node":{"Node":"n1","Address":"10.0.0.1","Meta":{}},' +
    '"service":{"ID":"s1","Service":"web","Port":80,"Proxy":{"Config":{"big":1e400,"zero":-0,"list":[1e400,-0]}}},"checks":[],"skipNodeUpdate":false}';
  const plain = createStateMachine();
  const owned = createStateMachine();
  const a = plain.apply(1n, JSON.parse(payload) as Command);
  const b = owned.apply(1n, JSON.parse(payload) as Command, true);
  assert.equal(a.result.ok, true, a.result.error?.message);
  assert.deepEqual(b, a);
  assert.equal(owned.snapshot(), plain.snapshot());
  const config = owned.node('n1').value!.Services[0]!.Proxy!.Config as Record<string, unknown>;
  assert.deepEqual(config, { big: null, zero: 0, list: [null, 0] });
  assert.ok(!Object.is(config.zero, -0));
  // Replayed from a snapshot (as a hub that loads one does), the state is the same.
  const restored = createStateMachine();
  restored.restore(owned.snapshot());
  assert.equal(restored.snapshot(), owned.snapshot());
});

test('(a4) an owned entry near the size limit is refused or stored exactly as its copy would be', () => {
  // Around 512 KiB of JSON, in one-byte, two-byte and escaped characters: the owned
  // apply skips writing the text only when a bound proves it small, else it measures.
  for (const blob of [
    'x'.repeat(170 * 1024),
    'x'.repeat(600 * 1024),
    'é'.repeat(200 * 1024),
    'é'.repeat(300 * 1024),
    '\n'.repeat(100 * 1024),
    '\u0001'.repeat(90 * 1024),
  ]) {
    const payload = JSON.stringify({
      type: 'register',
      node: { Node: 'n1', Address: '10.0.0.1', Meta: {} },
      service: { ID: 's1', Service: 'web', Port: 80, Proxy: { Config: { blob } } },
      checks: [],
      skipNodeUpdate: false,
    });
    const plain = createStateMachine();
    const owned = createStateMachine();
    const a = plain.apply(1n, JSON.parse(payload) as Command);
    const b = owned.apply(1n, JSON.parse(payload) as Command, true);
    assert.deepEqual(b, a);
    assert.equal(owned.snapshot(), plain.snapshot());
  }
});

test('(b) indexes strictly increase, events carry their entry index, a read whose value changed has a larger index', () => {
  fc.assert(
    fc.property(commands, (cmds) => {
      const sm = createStateMachine();
      let previous: { index: number; value: unknown }[] = [];
      cmds.forEach((c, i) => {
        const index = BigInt(i + 1);
        const a = sm.apply(index, resolveCurrent(sm, c));
        assert.equal(a.result.index, index);
        assert.equal(sm.lastIndex(), index);
        for (const e of a.events) assert.equal(e.index, index);
        const now = reads(sm).filter(
          (r): r is { index: number; value: unknown } =>
            typeof r === 'object' && r !== null && 'index' in r && 'value' in r,
        );
        now.forEach(({ index: ix, value }, k) => {
          assert.ok(ix >= 1 && ix <= i + 1, `read ${k} index ${ix} within [1, ${i + 1}]`);
          const before = previous[k];
          if (!before) return;
          assert.ok(ix >= before.index, `read ${k} went back from ${before.index} to ${ix}`);
          // Consul's blocking-query promise: what was read changed ⇒ its index moved past the old one.
          if (!isDeepStrictEqual(value, before.value))
            assert.ok(ix > before.index, `read ${k} changed at ${index} without moving its index`);
        });
        previous = now;
      });
    }),
    RUNS,
  );
});

test('(c) a refused command (txn rollback, CAS mismatch, unknown check...) changes nothing', () => {
  fc.assert(
    fc.property(commands, (cmds) => {
      const sm = createStateMachine();
      cmds.forEach((c, i) => {
        const before = content(sm.snapshot());
        const a = sm.apply(BigInt(i + 1), resolveCurrent(sm, c));
        if (!a.result.ok) {
          assert.equal(content(sm.snapshot()), before);
          assert.deepEqual(a.events, []);
          if (c.type === 'txn') assert.ok((a.result.txnErrors?.length ?? 0) > 0);
        }
      });
    }),
    RUNS,
  );
});

test('(d) restore(snapshot()) into a fresh machine gives the same reads and the same snapshot', () => {
  fc.assert(
    fc.property(commands, (cmds) => {
      const { sm } = run(cmds);
      const copy = createStateMachine();
      copy.restore(sm.snapshot());
      assert.equal(copy.snapshot(), sm.snapshot());
      assert.deepEqual(reads(copy), reads(sm));
    }),
    RUNS,
  );
});

/** Folds events the way a materializer does: register puts, deregister removes. */
function fold(events: readonly CatalogEvent[], topic: Topic): Map<string, Map<string, CheckServiceNode>> {
  const views = new Map<string, Map<string, CheckServiceNode>>();
  for (const e of events) {
    if (e.topic !== topic || e.payload.type !== 'service-health') continue;
    const view = views.get(e.subject) ?? new Map<string, CheckServiceNode>();
    views.set(e.subject, view);
    const key = `${e.payload.csn.Node.Node}/${e.payload.csn.Service.ID}`;
    if (e.payload.op === 'register') view.set(key, e.payload.csn);
    else view.delete(key);
  }
  return views;
}

test('events folded like a materializer equal the reads (health, connect, service list, config)', () => {
  fc.assert(
    fc.property(commands, (cmds) => {
      const { sm, applied } = run(cmds);
      const events = applied.flatMap((a) => a.events);
      const all = SERVICE_NAMES.flatMap((n) => sm.serviceInstances(n).value);
      const health = fold(events, Topic.ServiceHealth);
      const connect = fold(events, Topic.ServiceHealthConnect);
      for (const subject of new Set([
        ...SERVICE_NAMES.map((n) => n.toLowerCase()),
        ...health.keys(),
        ...connect.keys(),
      ])) {
        const expect = (pick: (c: CheckServiceNode) => boolean) =>
          new Map(all.filter(pick).map((c) => [`${c.Node.Node}/${c.Service.ID}`, c]));
        assert.deepEqual(
          health.get(subject) ?? new Map(),
          expect((c) => c.Service.Service.toLowerCase() === subject),
          `health ${subject}`,
        );
        assert.deepEqual(
          connect.get(subject) ?? new Map(),
          expect((c) => connectSubject(c.Service) === subject),
          `connect ${subject}`,
        );
      }
      const names = new Set<string>();
      for (const e of events) {
        if (e.payload.type !== 'service-list') continue;
        if (e.payload.op === 'register') {
          assert.ok(!names.has(e.payload.name), 'register only for a new name');
          names.add(e.payload.name);
        } else {
          assert.ok(names.delete(e.payload.name), 'deregister only for a listed name');
        }
      }
      assert.deepEqual(
        [...names].sort(),
        sm.serviceNames().value.map((s) => s.Name),
      );
      const entries = new Map<string, unknown>();
      for (const e of events) {
        if (e.payload.type !== 'config-entry') continue;
        if (e.payload.op === 'upsert') entries.set(e.subject + e.topic, e.payload.entry);
        else entries.delete(e.subject + e.topic);
      }
      const expected = new Map<string, unknown>();
      for (const k of KINDS)
        for (const en of sm.configEntries(k).value)
          expected.set(`default/default/${en.Name}${k === 'mesh' ? Topic.MeshConfig : Topic.ServiceResolver}`, en);
      assert.deepEqual(entries, expected);
    }),
    RUNS,
  );
});

test('(f) check() predicts apply without changing anything: same outcome, and "changes" iff apply changes the state', () => {
  fc.assert(
    fc.property(commands, (cmds) => {
      const sm = createStateMachine();
      cmds.forEach((c, i) => {
        const cmd = resolveCurrent(sm, c);
        const before = sm.snapshot();
        const verdict = sm.check(cmd);
        assert.equal(sm.snapshot(), before, 'check() left the state as it was');
        assert.equal(verdict.result.index, sm.lastIndex(), 'a verdict spends no index');
        const applied = sm.apply(BigInt(i + 1), cmd);
        assert.equal(verdict.result.ok, applied.result.ok);
        assert.deepEqual(verdict.result.error, applied.result.error);
        assert.deepEqual(verdict.result.txnErrors, applied.result.txnErrors);
        // A TTL refresh changes no Consul-visible field but is a change (it is in the snapshot).
        const changed = content(sm.snapshot()) !== content(before);
        assert.equal(verdict.changes, changed, `verdict.changes for ${cmd.type}`);
        if (!verdict.changes) assert.deepEqual(applied.events, []);
      });
    }),
    RUNS,
  );
});

test("(g) a read's index moves exactly when the entry moved one of the keys it watches (blocking queries wake for nothing else, and miss nothing)", () => {
  fc.assert(
    fc.property(commands, (cmds) => {
      const sm = createStateMachine();
      const watched = (r: CatalogReader) =>
        reads(r).filter((x): x is Indexed<unknown> => typeof x === 'object' && x !== null && 'watch' in x);
      cmds.forEach((c, i) => {
        const before = watched(sm);
        // From index 2, as in a catalog (1 is its origin entry): reads clamp index 0 to 1.
        const applied = sm.apply(BigInt(i + 2), resolveCurrent(sm, c));
        const after = watched(sm);
        after.forEach((now, k) => {
          const was = before[k]!;
          const woken = applied.moved === 'all' || was.watch!.some((key) => applied.moved.includes(key));
          assert.equal(
            now.index !== was.index,
            woken,
            `read ${k} watching ${was.watch!.join(',')}: moved ${String(applied.moved)}`,
          );
        });
      });
    }),
    RUNS,
  );
});
