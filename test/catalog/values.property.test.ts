// jsonLengthBound (values.ts): defined exactly when a JSON round trip gives the value
// back (sameThroughJson), and then never below the length of its JSON text, which is
// what lets an owned apply skip writing the text to check the size limit.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { jsonLengthBound, sameThroughJson } from '../../src/catalog/values';

// JSON-like values with everything a round trip changes or drops mixed in: -0, NaN,
// Infinity, undefined, holes, class instances, toJSON, functions, strings of any
// code units (lone surrogates and control characters included).
const leaf = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: fc.constantFrom('\u0000', '\u001f', '"', '\\', '\u2028', '\ud800', 'é', 'x'), maxLength: 20 }),
  fc.double(),
  fc.integer(),
  fc.constantFrom(
    0,
    -0,
    1e21,
    1e-7,
    -1.2345678901234566e-7,
    -0.0000012345678901234567,
    Number.MAX_VALUE,
    -Number.MIN_VALUE,
    NaN,
    Infinity,
  ),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.constant(() => 1),
  fc.constant(new Date(0)),
);
const { value } = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, leaf, tie('array'), tie('object'), tie('holey'), tie('withToJson')),
  array: fc.array(tie('value'), { maxLength: 5 }),
  object: fc.dictionary(fc.string({ unit: 'binary', maxLength: 8 }), tie('value'), { maxKeys: 5 }),
  holey: fc.array(tie('value'), { maxLength: 3 }).map((a) => {
    const out = [...a];
    out.length = a.length + 1; // a hole at the end
    return out;
  }),
  withToJson: tie('object').map((o) => ({ ...(o as object), toJSON: () => 'x' })),
}));

test('jsonLengthBound is defined iff sameThroughJson, and bounds the JSON text', () => {
  fc.assert(
    fc.property(value, (v) => {
      const bound = jsonLengthBound(v);
      assert.equal(bound !== undefined, sameThroughJson(v));
      if (bound !== undefined) assert.ok(JSON.stringify(v).length <= bound, `${JSON.stringify(v).length} > ${bound}`);
    }),
    { numRuns: 2000 },
  );
});

test('JSON.parse results: the bound holds for what a log entry carries', () => {
  fc.assert(
    fc.property(fc.jsonValue(), (j) => {
      const v = JSON.parse(JSON.stringify(j)) as unknown;
      const bound = jsonLengthBound(v);
      assert.notEqual(bound, undefined);
      assert.ok(JSON.stringify(v).length <= bound!);
    }),
    { numRuns: 1000 },
  );
});
