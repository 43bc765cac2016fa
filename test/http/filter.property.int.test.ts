// Property: for any filter over the fields a client filters /v1/health/service
// by, what the hub answers to ?filter=F equals the unfiltered answer filtered
// here, by a second, independent reading of the language's rules (below).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import type { Hub } from '../../src/hub';
import { call, startHub } from '../helpers/hub';

type Csn = {
  Node: { Node: string; Meta: Record<string, string> };
  Service: { ID: string; Service: string; Port: number; Tags: string[] };
  Checks: Array<{ Status: string }>;
};
/** A filter as the test sees it: its text and the test's own verdict per instance. */
type Gen = { text: string; holds: (c: Csn) => boolean };

const TAGS = ['v1', 'v2', 'blue', 'canary'];
const META_KEYS = ['env', 'rack', 'zone'];
const META_VALUES = ['prod', 'dev', 'a', 'b'];
const STATUSES = ['passing', 'warning', 'critical'];

/** Both string forms: "…" for some values, `…` for others (deterministic, so failures replay). */
const q = (s: string) => (s.length % 2 === 0 ? JSON.stringify(s) : `\`${s}\``);

const leaf: fc.Arbitrary<Gen> = fc.oneof(
  fc.record({ port: fc.integer({ min: 8000, max: 8007 }), eq: fc.boolean() }).map(({ port, eq }) => ({
    text: `Service.Port ${eq ? '==' : '!='} ${port}`,
    holds: (c: Csn) => (c.Service.Port === port) === eq,
  })),
  fc.record({ tag: fc.constantFrom(...TAGS), form: fc.integer({ min: 0, max: 3 }) }).map(({ tag, form }) => ({
    text: [
      `${q(tag)} in Service.Tags`,
      `${q(tag)} not in Service.Tags`,
      `Service.Tags contains ${q(tag)}`,
      `Service.Tags not contains ${q(tag)}`,
    ][form]!,
    holds: (c: Csn) => c.Service.Tags.includes(tag) === (form === 0 || form === 2),
  })),
  fc.boolean().map((empty) => ({
    text: `Service.Tags is ${empty ? '' : 'not '}empty`,
    holds: (c: Csn) => (c.Service.Tags.length === 0) === empty,
  })),
  fc
    .record({
      key: fc.constantFrom(...META_KEYS),
      value: fc.constantFrom(...META_VALUES),
      eq: fc.boolean(),
      index: fc.boolean(),
    })
    .map(({ key, value, eq, index }) => ({
      text: `${index ? `Node.Meta[${JSON.stringify(key)}]` : `Node.Meta.${key}`} ${eq ? '==' : '!='} ${q(value)}`,
      // A missing key equals nothing and differs from everything.
      holds: (c: Csn) => (Object.hasOwn(c.Node.Meta, key) && c.Node.Meta[key] === value) === eq,
    })),
  fc.record({ key: fc.constantFrom(...META_KEYS), has: fc.boolean() }).map(({ key, has }) => ({
    text: `${q(key)} ${has ? 'in' : 'not in'} Node.Meta`,
    holds: (c: Csn) => Object.hasOwn(c.Node.Meta, key) === has,
  })),
  fc.record({ status: fc.constantFrom(...STATUSES), eq: fc.boolean() }).map(({ status, eq }) => ({
    text: `Checks.Status ${eq ? '==' : '!='} ${status}`,
    // Any check that matches.
    holds: (c: Csn) => c.Checks.some((k) => (k.Status === status) === eq),
  })),
  fc
    .record({
      part: fc.constantFrom('web-1', 'web-', '-3', 'n2', 'x'),
      field: fc.constantFrom('Service.ID', 'Node.Node'),
      op: fc.integer({ min: 0, max: 5 }),
    })
    .map(({ part, field, op }) => {
      const get = (c: Csn) => (field === 'Service.ID' ? c.Service.ID : c.Node.Node);
      const ops: Array<[string, (v: string) => boolean]> = [
        ['==', (v) => v === part],
        ['!=', (v) => v !== part],
        ['contains', (v) => v.includes(part)],
        ['not contains', (v) => !v.includes(part)],
        ['matches', (v) => v.endsWith(part)],
        ['not matches', (v) => !v.endsWith(part)],
      ];
      const [word, fn] = ops[op]!;
      const value = op >= 4 ? JSON.stringify(`${part}$`) : JSON.stringify(part);
      return { text: `${field} ${word} ${value}`, holds: (c: Csn) => fn(get(c)) };
    }),
);

const filterArb: fc.Arbitrary<Gen> = fc.letrec<{ f: Gen }>((tie) => ({
  f: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc
      .tuple(tie('f'), tie('f'))
      .map(([a, b]) => ({ text: `(${a.text}) and (${b.text})`, holds: (c: Csn) => a.holds(c) && b.holds(c) })),
    fc
      .tuple(tie('f'), tie('f'))
      .map(([a, b]) => ({ text: `${a.text} or ${b.text}`, holds: (c: Csn) => a.holds(c) || b.holds(c) })),
    tie('f').map((a) => ({ text: `not (${a.text})`, holds: (c: Csn) => !a.holds(c) })),
  ),
})).f;

let hub: Hub;
before(async () => {
  hub = await startHub();
  // A fixed, varied catalog: 8 instances over 4 nodes.
  const nodes = [
    { name: 'n1', meta: { env: 'prod', rack: 'a' } },
    { name: 'n2', meta: { env: 'dev' } },
    { name: 'n3', meta: {} },
    { name: 'n4', meta: { env: 'prod', zone: 'b' } },
  ];
  for (let i = 0; i < 8; i++) {
    const node = nodes[i % 4]!;
    const res = await call(hub, 'PUT', '/v1/catalog/register', {
      Node: node.name,
      Address: `10.0.0.${i % 4}`,
      NodeMeta: node.meta,
      Service: { ID: `web-${i}`, Service: 'web', Port: 8000 + i, Tags: TAGS.filter((_, t) => (i >> t) & 1) },
      Checks:
        i % 3 === 0
          ? []
          : [
              { CheckID: `c-${i}`, Name: 'c', ServiceID: `web-${i}`, Status: STATUSES[i % 3]! },
              { CheckID: `d-${i}`, Name: 'd', ServiceID: `web-${i}`, Status: 'passing' },
            ],
    });
    assert.equal(res.status, 200, res.text);
  }
});
after(() => hub.close());

test('?filter results equal the unfiltered result filtered in the test', async () => {
  const all = (await call(hub, 'GET', '/v1/health/service/web')).json as Csn[];
  assert.equal(all.length, 8);
  await fc.assert(
    fc.asyncProperty(filterArb, async (f) => {
      const res = await call(hub, 'GET', `/v1/health/service/web?filter=${encodeURIComponent(f.text)}`);
      assert.equal(res.status, 200, `${f.text}: ${res.text}`);
      const expected = all.filter(f.holds).map((c) => c.Service.ID);
      assert.deepEqual(
        res.json.map((c: Csn) => c.Service.ID),
        expected,
        f.text,
      );
    }),
    { numRuns: 300 },
  );
});
