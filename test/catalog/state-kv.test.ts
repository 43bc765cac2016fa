// KV and sessions in the state machine: deterministic apply from what the
// commands carry (time included), invalidation by node and check, lock delays,
// renewals that move no index, and snapshots that keep all of it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Command } from '../../src/catalog/commands';
import type { KvOp, SessionInput } from '../../src/catalog/kv-types';
import { createStateMachine } from '../../src/catalog/state';
import { checkInput, register } from './fixtures';
import { harness } from './harness';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const kv = (op: KvOp, now = 1_000): Command => ({ type: 'kv', op, now });
const set = (key: string, value: string): Command => kv({ verb: 'set', key, value: b64(value), flags: '0' });

function session(id: string, extra: Partial<SessionInput> = {}): SessionInput {
  const base = { ID: id, Name: id, Node: 'n1', LockDelay: 15e9, Behavior: 'release' as const, TTL: '' };
  return { ...base, NodeChecks: ['serfHealth'], ServiceChecks: null, ...extra };
}
const create = (s: SessionInput, now = 1_000): Command => ({ type: 'session-create', session: s, now });

test('set keeps the lock, moves ModifyIndex, keeps CreateIndex; refusals change nothing', () => {
  const h = harness();
  h.apply(set('a', 'one'));
  h.apply(set('a', 'two'));
  const e = h.sm.kvGet('a');
  assert.equal(e.value!.CreateIndex, 1);
  assert.equal(e.value!.ModifyIndex, 2);
  assert.equal(e.index, 2);
  const refused = h.apply(kv({ verb: 'cas', key: 'a', value: null, index: 1 }));
  assert.equal(refused.result.ok, false);
  assert.equal(refused.result.error?.code, 'CONFLICT');
  assert.deepEqual(refused.moved, []);
  assert.equal(h.sm.kvGet('a').value!.ModifyIndex, 2);
});

test('a missing key reads at the last deletion; a prefix never below it', () => {
  const h = harness();
  h.apply(set('p/a', 'x'));
  h.apply(set('p/b', 'x'));
  assert.equal(h.sm.kvGet('nope').index, 1);
  h.apply(kv({ verb: 'delete', key: 'p/b' }));
  assert.equal(h.sm.kvGet('nope').index, 3);
  assert.equal(h.sm.kvList('p/').index, 3, 'the deletion moved the prefix read past p/a');
  assert.deepEqual(
    h.sm.kvList('p/').value.map((e) => e.Key),
    ['p/a'],
  );
});

test('a session on an unregistered node is refused unless it is the agent node', () => {
  const h = harness();
  const r = h.apply(create(session('s1', { Node: 'ghost' })));
  assert.equal(r.result.ok, false);
  assert.match(r.result.error!.message, /Missing node registration/);
  const agent = h.apply({ ...(create(session('s2', { Node: 'hub' })) as object), agentNode: true } as Command);
  assert.equal(agent.result.ok, true);
});

test('deregistering the node ends its sessions and releases their locks with a lock delay', () => {
  const h = harness();
  h.apply(register('n1'));
  h.apply(create(session('s1')));
  h.apply(kv({ verb: 'lock', key: 'leader', value: b64('me'), session: 's1' }, 2_000));
  assert.equal(h.sm.kvGet('leader').value!.Session, 's1');
  const gone = h.apply({ type: 'deregister', node: 'n1', now: 5_000 } as Command);
  assert.ok(gone.moved !== 'all' && gone.moved.includes('sessions'));
  assert.equal(h.sm.session('s1').value, undefined);
  assert.equal(h.sm.kvGet('leader').value!.Session, undefined);
  h.apply(register('n1'));
  h.apply(create(session('s2'), 6_000));
  const early = h.apply(kv({ verb: 'lock', key: 'leader', value: null, session: 's2' }, 5_000 + 14_999));
  assert.equal(early.result.ok, false, 'inside the 15 s lock delay');
  const late = h.apply(kv({ verb: 'lock', key: 'leader', value: null, session: 's2' }, 5_000 + 15_000));
  assert.equal(late.result.ok, true);
  assert.equal(h.sm.kvGet('leader').value!.LockIndex, 2);
  assert.deepEqual(JSON.parse(h.sm.snapshot()).kv.lockDelays, [], 'the acquire dropped the delay that ran out');
});

test('a bound check going critical ends the session; Behavior delete deletes its keys', () => {
  const h = harness();
  h.apply(register('n1', { checks: [checkInput('alive')] }));
  h.apply(create(session('s1', { NodeChecks: ['alive'], Behavior: 'delete' })));
  h.apply(kv({ verb: 'lock', key: 'job', value: b64('x'), session: 's1' }));
  h.apply({ type: 'check-update', node: 'n1', checkId: 'alive', status: 'warning', output: '' });
  assert.ok(h.sm.session('s1').value, 'warning does not end it');
  h.apply({ type: 'check-update', node: 'n1', checkId: 'alive', status: 'critical', output: '' });
  assert.equal(h.sm.session('s1').value, undefined);
  assert.equal(h.sm.kvGet('job').value, undefined);
  const refused = h.apply(create(session('s2', { NodeChecks: ['alive'] })));
  assert.match(refused.result.error!.message, /Check 'alive' is in critical state/);
  assert.match(h.apply(create(session('s3', { NodeChecks: ['none'] }))).result.error!.message, /Missing check 'none'/);
});

test('a renewal restarts the TTL clock and moves no blocking index; an expiry for an old renewal is a no-op', () => {
  const h = harness();
  h.apply(register('n1'));
  h.apply(create(session('s1', { TTL: '10s' })));
  const before = h.sm.session('s1').index;
  const renewed = h.apply({ type: 'session-renew', id: 's1', now: 2_000 });
  assert.equal(renewed.result.ok, true);
  assert.deepEqual(renewed.moved, []);
  assert.deepEqual(renewed.sessionsTouched, ['s1']);
  assert.equal(h.sm.session('s1').index, before);
  assert.equal(h.sm.sessionState('s1')!.renewIndex, 3);
  h.apply({ type: 'session-expire', id: 's1', ifRenewIndex: 2, now: 30_000 });
  assert.ok(h.sm.session('s1').value, 'expiry timed from an older renewal');
  h.apply({ type: 'session-expire', id: 's1', ifRenewIndex: 3, now: 30_000 });
  assert.equal(h.sm.session('s1').value, undefined);
  assert.equal(h.apply({ type: 'session-renew', id: 's1', now: 1 }).result.error?.code, 'NOT_FOUND');
});

test('a snapshot keeps entries, sessions, lock delays, clock and indexes: restored reads answer alike', () => {
  const h = harness();
  h.apply(register('n1'));
  h.apply(create(session('s1')));
  h.apply(kv({ verb: 'lock', key: 'l', value: b64('v'), flags: '3304740253564472344', session: 's1' }));
  h.apply(create(session('s2')));
  h.apply(kv({ verb: 'lock', key: 'm', value: null, session: 's2' }));
  h.apply({ type: 'session-destroy', id: 's2', now: 9_000 });
  h.apply(kv({ verb: 'delete', key: 'gone' }));
  const copy = createStateMachine();
  copy.restore(h.sm.snapshot());
  assert.equal(copy.snapshot(), h.sm.snapshot());
  for (const read of [
    (s: typeof copy) => s.kvList(''),
    (s: typeof copy) => s.sessions(),
    (s: typeof copy) => s.kvGet('x'),
  ]) {
    assert.deepEqual(read(copy), read(h.sm));
  }
  assert.equal(copy.kvGet('l').value!.Flags, '3304740253564472344');
  const lockM = kv({ verb: 'lock', key: 'm', value: null, session: 's1' }, 9_500);
  assert.equal(copy.apply(8n, lockM).result.ok, false, 'the lock delay survived the snapshot');
});

test('a txn with KV ops applies all or none and reports every failing op', () => {
  const h = harness();
  h.apply(set('t/a', 'a'));
  const r = h.apply({
    type: 'kv-txn',
    now: 1,
    ops: [
      { op: 'kv', kv: { verb: 'set', key: 't/b', value: null, flags: '0' } },
      { op: 'kv', kv: { verb: 'check-not-exists', key: 't/a' } },
      { op: 'kv', kv: { verb: 'get', key: 't/zzz' } },
    ],
  });
  assert.equal(r.result.ok, false);
  assert.deepEqual(
    r.result.txnErrors!.map((e) => e.OpIndex),
    [1, 2],
  );
  assert.equal(h.sm.kvGet('t/b').value, undefined);
});
