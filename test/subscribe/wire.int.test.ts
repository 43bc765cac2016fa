// Decodes the Subscribe wire bytes field by field with a hand-written protobuf
// reader, so a renamed or renumbered field in proto/ fails here even though a
// client built from the same (wrong) protos would still agree with the server.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { SUBSCRIBE_METHOD_PATH } from '../../src/subscribe/proto';
import { createPublisher } from '../../src/subscribe/publisher';
import { createFakeCatalog } from './fake-catalog';
import { StreamReader, silent, startSubscribeServer } from './grpc-helpers';

interface Field {
  no: number;
  wire: number;
  varint?: bigint;
  bytes?: Buffer;
}

function readVarint(buf: Buffer, at: number): [bigint, number] {
  let result = 0n;
  let shift = 0n;
  for (;;) {
    const b = buf[at++];
    if (b === undefined) throw new Error('truncated varint');
    result |= BigInt(b & 0x7f) << shift;
    if ((b & 0x80) === 0) return [result, at];
    shift += 7n;
  }
}

function fields(buf: Buffer): Field[] {
  const out: Field[] = [];
  let at = 0;
  while (at < buf.length) {
    const [tag, next] = readVarint(buf, at);
    at = next;
    const no = Number(tag >> 3n);
    const wire = Number(tag & 7n);
    if (wire === 0) {
      const [v, n2] = readVarint(buf, at);
      out.push({ no, wire, varint: v });
      at = n2;
    } else if (wire === 2) {
      const [len, n2] = readVarint(buf, at);
      out.push({ no, wire, bytes: buf.subarray(n2, n2 + Number(len)) });
      at = n2 + Number(len);
    } else if (wire === 1) {
      out.push({ no, wire, bytes: buf.subarray(at, at + 8) });
      at += 8;
    } else if (wire === 5) {
      out.push({ no, wire, bytes: buf.subarray(at, at + 4) });
      at += 4;
    } else throw new Error(`unexpected wire type ${wire}`);
  }
  return out;
}

/** The single field numbered `no` (asserting there is exactly one). */
function one(buf: Buffer, no: number): Field {
  const found = fields(buf).filter((f) => f.no === no);
  assert.equal(found.length, 1, `expected one field #${no}, found ${found.length} in ${buf.toString('hex')}`);
  return found[0] as Field;
}
const msg = (buf: Buffer, no: number): Buffer => {
  const f = one(buf, no);
  assert.equal(f.wire, 2, `field #${no} is length-delimited`);
  return f.bytes as Buffer;
};
const str = (buf: Buffer, no: number): string => msg(buf, no).toString('utf8');
const num = (buf: Buffer, no: number): bigint => {
  const f = one(buf, no);
  assert.equal(f.wire, 0, `field #${no} is a varint`);
  return f.varint as bigint;
};
const numbers = (buf: Buffer): number[] => fields(buf).map((f) => f.no);

function varint(n: number | bigint): Buffer {
  let v = BigInt(n);
  const out: number[] = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) b |= 0x80;
    out.push(b);
  } while (v > 0n);
  return Buffer.from(out);
}
const tag = (no: number, wire: number): Buffer => varint((no << 3) | wire);
const lenField = (no: number, body: Buffer): Buffer => Buffer.concat([tag(no, 2), varint(body.length), body]);
const varintField = (no: number, v: number | bigint): Buffer => Buffer.concat([tag(no, 0), varint(v)]);

/** SubscribeRequest encoded by hand: Topic=1, Index=4, NamedSubject=10{Key=1}, or WildcardSubject=9. */
function request(topic: number, opts: { key?: string; index?: bigint; wildcard?: boolean }): Buffer {
  const parts = [varintField(1, topic)];
  if (opts.index !== undefined) parts.push(varintField(4, opts.index));
  if (opts.wildcard) parts.push(varintField(9, 1));
  if (opts.key !== undefined) parts.push(lenField(10, lenField(1, Buffer.from(opts.key))));
  return Buffer.concat(parts);
}

test('Subscribe wire format: every field number checked against the spec', async (t) => {
  const catalog = createFakeCatalog();
  const publisher = createPublisher({ catalog, snapshotCacheTtlMs: 10_000, logger: silent });
  const server = await startSubscribeServer(publisher);
  const client = new grpc.Client(server.address, grpc.credentials.createInsecure());
  t.after(async () => {
    client.close();
    await server.close();
  });
  const raw = (req: Buffer) =>
    new StreamReader<Buffer>(
      client.makeServerStreamRequest(
        SUBSCRIBE_METHOD_PATH,
        (b: Buffer) => b,
        (b: Buffer) => b,
        req,
      ),
    );

  catalog.register('web', 'w1');
  catalog.register('web', 'w2');
  const health = raw(request(1, { key: 'web' }));
  const [e1, , eos] = await health.take(3);
  assert.ok(e1 && eos);

  // Event.Index = 1, Event.ServiceHealth = 10
  assert.deepEqual(numbers(e1), [1, 10]);
  assert.equal(num(e1, 1), 2n);
  const update = msg(e1, 10);
  // ServiceHealthUpdate: Op = 1 (Register = 0 is the proto3 default, not written), CheckServiceNode = 2
  assert.deepEqual(numbers(update), [2]);
  const csn = msg(update, 2);
  // CheckServiceNode: Node = 1, Service = 2, Checks = 3
  const node = msg(csn, 1);
  const service = msg(csn, 2);
  const check = msg(csn, 3);
  // Node: Node = 2, Address = 3, RaftIndex = 7 {CreateIndex = 1, ModifyIndex = 2}
  assert.equal(str(node, 2), 'node1');
  assert.equal(str(node, 3), '10.0.0.1');
  assert.equal(num(msg(node, 7), 1), 1n);
  assert.equal(num(msg(node, 7), 2), 1n);
  // NodeService: ID = 2, Service = 3, Port = 7, RaftIndex = 14
  assert.equal(str(service, 2), 'w1');
  assert.equal(str(service, 3), 'web');
  assert.equal(num(service, 7), 8080n);
  assert.equal(num(msg(service, 14), 2), 1n);
  // HealthCheck: CheckID = 2, Status = 4; Definition = 10 {TTL = 17: Duration{seconds = 1}}
  assert.equal(str(check, 2), 'service:w1');
  assert.equal(str(check, 4), 'passing');
  assert.equal(num(msg(msg(check, 10), 17), 1), 30n);
  // EndOfSnapshot = 2 with the snapshot index
  assert.deepEqual(numbers(eos), [1, 2]);
  assert.equal(num(eos, 1), 2n);
  assert.equal(num(eos, 2), 1n);

  // A deregister carries Op = 1 (Deregister); two events of one entry become EventBatch = 4 {Events = 1}.
  catalog.deregister('web', 'w2');
  const dereg = await health.next();
  assert.equal(num(msg(dereg, 10), 1), 1n);
  catalog.registerMany('web', ['w3', 'w4']);
  const batch = await health.next();
  assert.deepEqual(numbers(batch), [1, 4]);
  assert.equal(num(batch, 1), 4n);
  const inner = fields(msg(batch, 4));
  assert.deepEqual(
    inner.map((f) => f.no),
    [1, 1],
  );
  assert.equal(num(inner[1]?.bytes as Buffer, 1), 4n, 'each batched Event carries its Index');
  assert.equal(str(msg(msg(msg(inner[1]?.bytes as Buffer, 10), 2), 2), 2), 'w4');

  // Request side: Index = 4 names a stale index → NewSnapshotToFollow = 3 comes first.
  const stale = raw(request(1, { key: 'web', index: 1n }));
  const nstf = await stale.next();
  assert.deepEqual(numbers(nstf), [3]);
  assert.equal(num(nstf, 3), 1n);
  stale.call.cancel();
  // Index = 4 equal to the subject's newest event → resume: the first thing seen is a live event.
  const resumed = raw(request(1, { key: 'web', index: 4n }));
  await resumed.subscribed();
  catalog.deregister('web', 'w1');
  const live = await resumed.next();
  assert.equal(num(live, 1), 5n);
  assert.equal(num(msg(live, 10), 1), 1n);

  // ConfigEntry = 11 → ConfigEntryUpdate {Op = 1, ConfigEntry = 2 {Kind = 1, Name = 2, RaftIndex = 4, ServiceDefaults = 9 {Protocol = 1}}}
  catalog.setConfig('service-defaults', 'api', { Protocol: 'grpc' });
  const cfg = raw(request(8, { key: 'api' }));
  const [c1] = await cfg.take(1);
  assert.ok(c1);
  const ceu = msg(c1, 11);
  const entry = msg(ceu, 2);
  assert.equal(num(entry, 1), 5n, 'Kind = KindServiceDefaults (5)');
  assert.equal(str(entry, 2), 'api');
  assert.equal(num(msg(entry, 4), 1), 6n);
  assert.equal(str(msg(entry, 9), 1), 'grpc');

  // Service = 12 → ServiceListUpdate {Name = 2, EnterpriseMeta = 3}; WildcardSubject = 9 on the request.
  const list = raw(request(7, { wildcard: true }));
  const [l1] = await list.take(1);
  assert.ok(l1);
  const slu = msg(l1, 12);
  assert.equal(str(slu, 2), 'web');
  assert.equal(str(msg(slu, 3), 1), 'default');
  for (const s of [health, resumed, cfg, list]) s.call.cancel();
});
