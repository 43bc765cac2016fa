// Bench server process, bare mode: the limit in this runtime. A grpc-js server
// that accepts the same Delta ADS streams, reads and ignores requests, and on a
// change writes one pre-encoded DeltaDiscoveryResponse (one ClusterLoadAssignment
// of the same shape the hub sends) to every stream. No subscriptions, no ACK
// tracking, no translation.
import * as grpc from '@grpc/grpc-js';
import { encodeXdsResource } from '../../src/xds/translate/encode';
import { buildLoadAssignment } from '../../src/xds/translate/endpoints';
import { TypeUrl } from '../../src/xds/type-urls';
import { DELTA_ADS, deltaResponse, now, type ServerCommand, type ServerReply } from './protocol';

const send = (m: ServerReply) => {
  if (process.connected) process.send!(m);
};
// The parent is gone (finished or failed): leave no orphan behind.
process.on('disconnect', () => process.exit(0));
const Res = deltaResponse();
const streams = new Set<grpc.ServerDuplexStream<Buffer, Buffer>>();
let port = 8080;

function preEncoded(name: string): Buffer {
  const cla = encodeXdsResource(
    TypeUrl.ClusterLoadAssignment,
    name,
    buildLoadAssignment({
      name,
      instances: [
        {
          Node: { ID: '', Node: 'n', Address: '10.0.0.1', Datacenter: 'dc1', TaggedAddresses: {}, Meta: {}, CreateIndex: 1, ModifyIndex: 1 },
          Service: { Kind: '', ID: 'x', Service: name, Tags: [], Address: '', TaggedAddresses: {}, Meta: {}, Port: ++port, Weights: { Passing: 1, Warning: 1 }, EnableTagOverride: false, CreateIndex: 1, ModifyIndex: 1 },
          Checks: [],
        },
      ],
    }),
  );
  const msg = Res.fromObject({
    systemVersionInfo: '',
    typeUrl: TypeUrl.ClusterLoadAssignment,
    nonce: String(port),
    resources: [{ name, version: cla.version, resource: { type_url: TypeUrl.ClusterLoadAssignment, value: cla.encoded } }],
  });
  return Buffer.from(Res.encode(msg).finish());
}

async function main() {
  const server = new grpc.Server();
  const raw = (b: Buffer) => b;
  server.register(DELTA_ADS, (call: grpc.ServerDuplexStream<Buffer, Buffer>) => {
    streams.add(call);
    call.sendMetadata(new grpc.Metadata());
    call.on('data', () => {});
    call.on('error', () => streams.delete(call));
    call.on('end', () => {
      streams.delete(call);
      call.end();
    });
  }, raw, raw, 'bidi');
  const bound = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
  );
  send({ kind: 'listening', port: bound });
  process.on('message', (m: ServerCommand) => {
    if (m.cmd === 'setup') send({ kind: 'setup-done', ms: 0 });
    else if (m.cmd === 'stats') {
      (globalThis as { gc?: () => void }).gc?.();
      const mem = process.memoryUsage();
      const cpu = process.cpuUsage();
      send({ kind: 'stats', rss: mem.rss, heapUsed: mem.heapUsed, external: mem.external, arrayBuffers: mem.arrayBuffers, cpuUserUs: cpu.user, cpuSystemUs: cpu.system, streams: streams.size });
    } else if (m.cmd === 'change') {
      const name = `svc-${m.service}`;
      const buf = preEncoded(name);
      const t0 = now();
      for (const s of streams) s.write(buf);
      send({ kind: 'changed', t0, round: m.round, name });
    } else if (m.cmd === 'exit') {
      server.forceShutdown();
      process.exit(0);
    }
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
