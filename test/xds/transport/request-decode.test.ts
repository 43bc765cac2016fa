// The Delta ACK fast path (wire.ts deltaAck) against the full protobufjs
// decode: for any DeltaDiscoveryRequest — ACK, NACK, subscription change,
// first request with a node — and for arbitrary, cut or corrupted bytes,
// decodeDeltaRequest gives exactly what decodeDeltaRequestFully gives, or
// throws the same error.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import * as protobuf from 'protobufjs';
import {
  type ApiVersion,
  decodeDeltaRequest,
  decodeDeltaRequestFully,
  encodeRequest,
} from '../../../src/xds/transport/wire';

type Outcome = { ok: true; value: unknown } | { ok: false; message: string };

function outcome(f: () => unknown): Outcome {
  try {
    const v = f() as Record<string, unknown>;
    // Compared as plain values: the fast path's lists are shared and frozen, the full decode's fresh.
    return {
      ok: true,
      value: {
        ...v,
        subscribe: [...(v['subscribe'] as string[])],
        unsubscribe: [...(v['unsubscribe'] as string[])],
        initialVersions: [...(v['initialVersions'] as Map<string, string>)],
      },
    };
  } catch (err) {
    return { ok: false, message: (err as Error).message };
  }
}

function agree(api: ApiVersion, bytes: Buffer): void {
  assert.deepStrictEqual(
    outcome(() => decodeDeltaRequest(api, bytes)),
    outcome(() => decodeDeltaRequestFully(api, bytes)),
  );
}

const text = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.constantFrom('', 'type.googleapis.com/x', '1-2'),
);
const name = fc.oneof(fc.string({ minLength: 1 }), fc.constant('*'));
const request = fc.record(
  {
    node: fc.record({ id: fc.string(), cluster: fc.string() }),
    typeUrl: text,
    resourceNamesSubscribe: fc.array(name, { maxLength: 3 }),
    resourceNamesUnsubscribe: fc.array(name, { maxLength: 3 }),
    initialResourceVersions: fc.dictionary(fc.string({ minLength: 1 }), fc.string(), { maxKeys: 2 }),
    responseNonce: fc.oneof(text, fc.string({ minLength: 200, maxLength: 300 })),
    errorDetail: fc.record({ code: fc.nat(20), message: fc.string() }, { requiredKeys: [] }),
  },
  { requiredKeys: [] },
);
const api = fc.constantFrom<ApiVersion>('v3', 'v2');

test('Delta ACK fast path: every request decodes as the full decode does (ACK, NACK, subscribe, node)', () => {
  fc.assert(
    fc.property(api, request, (v, req) => agree(v, encodeRequest(v, 'DeltaDiscoveryRequest', req))),
    { numRuns: 2000 },
  );
});

test('Delta ACK fast path: repeated, cut, extended or corrupted bytes decode (or fail) as the full decode does', () => {
  const ack = fc.record({ typeUrl: text, responseNonce: text });
  const bytesOf = (v: ApiVersion, r: object) => encodeRequest(v, 'DeltaDiscoveryRequest', r);
  fc.assert(
    fc.property(api, ack, ack, fc.nat(), fc.uint8Array({ maxLength: 8 }), fc.nat(255), (v, a, b, cut, tail, flip) => {
      const one = bytesOf(v, a);
      const two = Buffer.concat([one, bytesOf(v, b)]); // fields repeated: the last one wins
      agree(v, two);
      agree(v, one.subarray(0, cut % (one.length + 1))); // cut anywhere, in a length or a string
      agree(v, Buffer.concat([one, Buffer.from(tail)])); // followed by anything
      if (one.length > 0) {
        const bad = Buffer.from(one);
        bad[cut % bad.length] = flip; // one byte replaced: a tag, a length or a character
        agree(v, bad);
      }
    }),
    { numRuns: 2000 },
  );
  fc.assert(
    fc.property(api, fc.uint8Array({ maxLength: 40 }), (v, raw) => agree(v, Buffer.from(raw))),
    { numRuns: 2000 },
  );
});

test('Delta ACK fast path: invalid UTF-8, long lengths, an empty error_detail (a NACK) and unknown fields', () => {
  const w = () => protobuf.Writer.create();
  const cases: Buffer[] = [
    Buffer.from([0x12, 0x02, 0xc3, 0x28, 0x32, 0x01, 0xff]), // invalid UTF-8 in both fields
    Buffer.from(w().uint32(0x32).string('n'.repeat(20_000)).finish()), // a length in three bytes
    Buffer.from(w().uint32(0x12).string('t').uint32(0x32).string('1').uint32(0x3a).bytes(new Uint8Array(0)).finish()),
    Buffer.from(
      w()
        .uint32(0x12)
        .string('t')
        .uint32((99 << 3) | 2)
        .string('x')
        .finish(),
    ),
    Buffer.from(w().uint32(0x10).uint32(5).finish()), // field 2 as a varint
    Buffer.from([0x92, 0x00, 0x01, 0x61]), // field 2 with a two-byte tag
    Buffer.from([0x32, 0x81, 0x00, 0x61]), // a length with a redundant continuation byte
    Buffer.from([0x32, 0xff, 0xff, 0xff, 0xff, 0x0f]), // a length past what a four-byte varint holds
  ];
  for (const v of ['v3', 'v2'] as const) for (const c of cases) agree(v, c);
  // And the NACK is one: error_detail present even when empty.
  assert.deepStrictEqual(decodeDeltaRequest('v3', cases[2]!).errorDetail, { code: 0, message: '' });
});
