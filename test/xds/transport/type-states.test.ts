// TypeStates against a plain Map (fast-check): any sequence of replacements
// reads and iterates as a Map does (insertion order kept); earlier values never
// change; replacing a state with itself returns the same value. And the
// observer seam it feeds (callbacks.ts): a throwing `sent`/`answered` observer
// neither throws into the stream nor stops the report.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { reportAnswers, reportSent } from '../../../src/xds/transport/callbacks';
import { RESOURCE_TYPES } from '../../../src/xds/transport/resource-types';
import { withPending } from '../../../src/xds/transport/rules/ack';
import {
  newStreamState,
  newTypeState,
  streamWith,
  type TypeState,
  typeWith,
  withType,
} from '../../../src/xds/transport/stream-state';
import { TypeStates } from '../../../src/xds/transport/type-states';

const states = RESOURCE_TYPES.map((t) => newTypeState(t, t.typeUrl));

test('TypeStates: random replacements read and iterate exactly as a Map; earlier values never change', () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.integer({ min: 0, max: RESOURCE_TYPES.length - 1 }), fc.boolean()), { maxLength: 40 }),
      (steps) => {
        let value = TypeStates.EMPTY;
        let model = new Map<string, TypeState>();
        const history: [TypeStates, Map<string, TypeState>][] = [];
        for (const [i, dirty] of steps) {
          const t = RESOURCE_TYPES[i]!;
          const st = dirty ? typeWith(states[i]!, { dirty: true }) : states[i]!;
          value = value.with(t.typeUrl, st);
          model = new Map(model).set(t.typeUrl, st);
          history.push([value, model]);
          assert.equal(value.with(t.typeUrl, st), value, 'the same state again is the same value');
        }
        for (const [v, m] of history) {
          assert.deepEqual([...v], [...m]);
          assert.deepEqual([...v.keys()], [...m.keys()]);
          assert.deepEqual([...v.values()], [...m.values()]);
          assert.equal(v.size, m.size);
          for (let i = 0; i < v.size; i++) assert.equal(v.stateAt(i), m.get(v.urlAt(i)));
          for (const t of RESOURCE_TYPES) {
            assert.equal(v.get(t.typeUrl), m.get(t.typeUrl));
            assert.equal(v.has(t.typeUrl), m.has(t.typeUrl));
          }
          const seen: string[] = [];
          v.forEach((_, k) => seen.push(k));
          assert.deepEqual(seen, [...m.keys()]);
        }
      },
    ),
  );
});

test('callbacks: a throwing sent/answered observer is reported as a warning, never thrown into the stream', async () => {
  const node = { id: 'n', cluster: 'c' } as never;
  const type = RESOURCE_TYPES[0]!;
  const base = streamWith(newStreamState(7, 'delta', 'ads', 'v3'), { node });
  const pending = { version: '', sent: new Map([['a', '1']]), resources: undefined, heartbeat: false };
  const before = withType(base, withPending(newTypeState(type, type.typeUrl), pending, '7-1', false));
  const after = withType(before, typeWith(before.types.get(type.typeUrl)!, { pending: undefined }));
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(w.message);
  process.on('warning', onWarning);
  const seen: string[] = [];
  const observer = {
    sent: (e: { nonce: string }) => {
      seen.push(`sent ${e.nonce}`);
      throw new Error('sent broke');
    },
    answered: (e: { nonce: string; error: unknown }) => {
      seen.push(`answered ${e.nonce} ${e.error ? 'nack' : 'ack'}`);
      throw new Error('answered broke');
    },
  };
  const out = { type, body: new Uint8Array(), nonce: '7-1', count: 1, heartbeat: false, changeAt: undefined };
  assert.doesNotThrow(() => reportSent(observer as never, before, out, 1));
  assert.doesNotThrow(() => reportAnswers(observer as never, before.types, after, 2));
  await new Promise((r) => setImmediate(r));
  process.off('warning', onWarning);
  assert.deepEqual(seen, ['sent 7-1', 'answered 7-1 ack']);
  assert.deepEqual(warnings, ['xDS observer threw: sent broke', 'xDS observer threw: answered broke']);
});
