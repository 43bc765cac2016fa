// Bench server process, baseline: a bare grpc-js server-streaming method that
// writes one pre-encoded event (same size and shape as the hub's) per sequence
// number to every stream, honouring write() → false and 'drain' with a small
// per-stream queue (bounded by main's window).
import * as grpc from '@grpc/grpc-js';
import { type CheckServiceNode, Topic } from '../../src/catalog/types';
import { SUBSCRIBE_METHOD_PATH } from '../../src/subscribe/proto';
import { createEventEncoder } from '../../src/subscribe/wire';
import { cpuMsSince, type MainToServer, marker, nowUs, type ServerToMain } from './common';
import { benchCheck, benchNode, benchService } from './instance';

const send = (m: ServerToMain) => process.send?.(m);

// The hub's event for one instance, with a marker to patch per round.
const csn: CheckServiceNode = {
  Node: { ...benchNode(7), CreateIndex: 8, ModifyIndex: 8 },
  Service: { ...benchService(7, 0, 0), CreateIndex: 8, ModifyIndex: 123456 },
  Checks: [{ ...benchCheck(7), ServiceName: 'web', ServiceTags: ['v1', 'primary'], CreateIndex: 8, ModifyIndex: 8 }],
};
const template = createEventEncoder().encode({
  kind: 'events',
  index: 123456n,
  events: [
    {
      topic: Topic.ServiceHealth,
      subject: 'web',
      index: 123456n,
      payload: { type: 'service-health', op: 'register', csn },
    },
  ],
});
const markerAt = template.indexOf('@@');
const endOfSnapshot = Buffer.from([0x08, 0x01, 0x10, 0x01]);

interface Stream {
  call: grpc.ServerWritableStream<Buffer, Buffer>;
  pending: Buffer[];
  blocked: boolean;
}
const streams = new Set<Stream>();

function write(s: Stream, buf: Buffer): void {
  if (s.blocked) s.pending.push(buf);
  else if (!s.call.write(buf)) s.blocked = true;
}

const server = new grpc.Server();
const identity = (b: Buffer) => b;
server.addService(
  {
    Subscribe: {
      path: SUBSCRIBE_METHOD_PATH,
      requestStream: false,
      responseStream: true,
      requestSerialize: identity,
      requestDeserialize: identity,
      responseSerialize: identity,
      responseDeserialize: identity,
    },
  },
  {
    Subscribe: (call: grpc.ServerWritableStream<Buffer, Buffer>) => {
      const s: Stream = { call, pending: [], blocked: false };
      streams.add(s);
      call.on('drain', () => {
        s.blocked = false;
        while (!s.blocked && s.pending.length > 0) write(s, s.pending.shift() as Buffer);
      });
      call.on('cancelled', () => streams.delete(s));
      write(s, endOfSnapshot);
    },
  },
);

let allowUpTo = 0;
let running = false;
let produced = 0;
let wake: (() => void) | undefined;

async function produce(): Promise<void> {
  let seq = 1;
  while (running) {
    if (seq >= allowUpTo) {
      await new Promise<void>((r) => (wake = r));
      continue;
    }
    const buf = Buffer.from(template);
    buf.write(marker(seq, nowUs()), markerAt, 'latin1');
    for (const s of streams) write(s, buf);
    produced++;
    seq++;
    await new Promise<void>((r) => setImmediate(r)); // let I/O run between rounds, as the hub's apply does
  }
}

let producing: Promise<void> | undefined;
let cpuAtStart = process.cpuUsage();
process.on('message', async (m: MainToServer) => {
  if (m.type === 'start') {
    cpuAtStart = process.cpuUsage();
    running = true;
    producing = produce();
  } else if (m.type === 'allow') {
    allowUpTo = m.upTo;
    wake?.();
  } else if (m.type === 'stop') {
    running = false;
    wake?.();
    await producing;
    send({
      type: 'stats',
      rssBytes: process.memoryUsage().rss,
      produced,
      cpuMs: cpuMsSince(cpuAtStart),
      eventBytes: template.length,
    });
    server.forceShutdown();
    process.disconnect();
  }
});

server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) => {
  if (err) throw err;
  send({ type: 'ready', port });
});
