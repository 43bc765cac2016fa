// Bench server process, bare mode: the limit in this runtime. A grpc-js server
// that accepts the same Delta ADS streams, reads and ignores requests, and on a
// change writes one pre-encoded DeltaDiscoveryResponse (one ClusterLoadAssignment
// of the same shape the hub sends) to every stream. No subscriptions, no ACK
// tracking, no translation. Under churn it folds the changes of one window and
// writes one response carrying all of them to every stream (the limit for the
// hub's churn figures).
import * as grpc from '@grpc/grpc-js';
import { encodeXdsResource } from '../../src/xds/translate/encode';
import { buildLoadAssignment } from '../../src/xds/translate/endpoints';
import { encodeResource } from '../../src/xds/transport/envoy-proto';
import { TypeUrl } from '../../src/xds/transport/type-urls';
import { roundProfile } from './profile';
import {
  CDS,
  cpuNowUs,
  DELTA_ADS,
  deltaRequest,
  deltaResponse,
  EDS,
  now,
  pinSelf,
  processStats,
  type ServerCommand,
  type ServerReply,
  settleMemory,
} from './protocol';

const send = (m: ServerReply) => {
  if (process.connected) process.send!(m);
};
// The parent is gone (finished or failed): leave no orphan behind.
process.on('disconnect', () => process.exit(0));
pinSelf();
const Res = deltaResponse();
const streams = new Set<grpc.ServerDuplexStream<Buffer, Buffer>>();
let port = 8080;

function preEncoded(name: string): Buffer {
  const cla = assignment(name, ++port);
  const msg = Res.fromObject({
    systemVersionInfo: '',
    typeUrl: TypeUrl.ClusterLoadAssignment,
    nonce: String(port),
    resources: [
      { name, version: cla.version, resource: { type_url: TypeUrl.ClusterLoadAssignment, value: cla.encoded } },
    ],
  });
  return Buffer.from(Res.encode(msg).finish());
}

/** Service `name`'s assignment: one instance on `at`. */
function assignment(name: string, at: number) {
  return encodeXdsResource(
    TypeUrl.ClusterLoadAssignment,
    name,
    buildLoadAssignment({
      name,
      instances: [
        {
          Node: {
            ID: '',
            Node: 'n',
            Address: '10.0.0.1',
            Datacenter: 'dc1',
            TaggedAddresses: {},
            Meta: {},
            CreateIndex: 1,
            ModifyIndex: 1,
          },
          Service: {
            Kind: '',
            ID: 'x',
            Service: name,
            Tags: [],
            Address: '',
            TaggedAddresses: {},
            Meta: {},
            Port: at,
            Weights: { Passing: 1, Warning: 1 },
            EnableTagOverride: false,
            CreateIndex: 1,
            ModifyIndex: 1,
          },
          Checks: [],
        },
      ],
    }),
  );
}

/** Churn: the changes of the open window (name → port), sent together when it ends. */
const folded = new Map<string, number>();
// biome-ignore lint/correctness/noUnusedVariables: read by `windowTimer ??=`, which arms one timer per window
let windowTimer: NodeJS.Timeout | undefined;
let churnNonce = 0;
function sendFolded(): void {
  windowTimer = undefined;
  const resources = [...folded].map(([name, at]) => {
    const cla = assignment(name, at);
    return { name, version: cla.version, resource: { type_url: TypeUrl.ClusterLoadAssignment, value: cla.encoded } };
  });
  folded.clear();
  const buf = Buffer.from(
    Res.encode(
      Res.fromObject({
        systemVersionInfo: '',
        typeUrl: TypeUrl.ClusterLoadAssignment,
        nonce: `churn-${++churnNonce}`,
        resources,
      }),
    ).finish(),
  );
  for (const s of streams) s.write(buf);
}

/** bare-sync: one DeltaDiscoveryResponse with S clusters (EDS via ADS, as the hub's) and one with their S assignments, shared by every stream. */
const SYNC = process.env['XDS_BENCH_BARE_SYNC'] === '1';
let initial: { cds: Buffer; eds: Buffer } | undefined;
function initialSets(services: number): { cds: Buffer; eds: Buffer } {
  const names = Array.from({ length: services }, (_, i) => `svc-${i}`);
  const set = (typeUrl: string, resources: { name: string; value: Uint8Array }[]) =>
    Buffer.from(
      Res.encode(
        Res.fromObject({
          typeUrl,
          nonce: 'initial',
          resources: resources.map((r) => ({
            name: r.name,
            version: '1',
            resource: { type_url: typeUrl, value: r.value },
          })),
        }),
      ).finish(),
    );
  const cds = set(
    CDS,
    names.map((name) => ({
      name,
      value: encodeResource('envoy.config.cluster.v3.Cluster', {
        name,
        type: 'EDS',
        eds_cluster_config: { eds_config: { ads: {}, resource_api_version: 'V3' } },
        connect_timeout: { seconds: 5 },
        lb_policy: 'ROUND_ROBIN',
      }),
    })),
  );
  const eds = set(
    EDS,
    names.map((name) => ({
      name,
      value: (Res.decode(preEncoded(name)) as unknown as { resources: { resource: { value: Uint8Array } }[] })
        .resources[0]!.resource.value,
    })),
  );
  return { cds, eds };
}
const Req = deltaRequest();
const profile = roundProfile('bare');

async function main() {
  const server = new grpc.Server();
  const raw = (b: Buffer) => b;
  server.register(
    DELTA_ADS,
    (call: grpc.ServerDuplexStream<Buffer, Buffer>) => {
      streams.add(call);
      call.sendMetadata(new grpc.Metadata());
      call.on('data', (buf: Buffer) => {
        if (!initial) return;
        const req = Req.decode(buf) as unknown as { typeUrl: string; resourceNamesSubscribe: string[] };
        if (req.typeUrl === CDS && req.resourceNamesSubscribe.length > 0) call.write(initial.cds);
        else if (req.typeUrl === EDS && req.resourceNamesSubscribe.length > 0) call.write(initial.eds);
      });
      call.on('error', () => streams.delete(call));
      call.on('end', () => {
        streams.delete(call);
        call.end();
      });
    },
    raw,
    raw,
    'bidi',
  );
  const bound = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
  );
  send({ kind: 'listening', port: bound });
  process.on('message', async (m: ServerCommand) => {
    if (m.cmd === 'cpu-mark') return send({ kind: 'cpu-mark', id: m.id, cpuUs: cpuNowUs() });
    if (m.cmd === 'setup') {
      if (SYNC) initial = initialSets(m.services);
      send({ kind: 'setup-done', ms: 0 });
      profile.setupDone();
    } else if (m.cmd === 'rounds-start') {
      send({ kind: 'stats', ...processStats(streams.size) });
      profile.roundsStart();
    } else if (m.cmd === 'stats') {
      await profile.stats();
      if (m.settle) await settleMemory();
      send({ kind: 'stats', ...processStats(streams.size, true) });
    } else if (m.cmd === 'change') {
      const name = `svc-${m.service}`;
      const buf = preEncoded(name);
      const t0 = now();
      for (const s of streams) s.write(buf);
      send({ kind: 'changed', t0, round: m.round, name });
    } else if (m.cmd === 'churn-change') {
      folded.set(`svc-${m.service}`, m.port);
      windowTimer ??= setTimeout(sendFolded, m.windowMs);
    } else if (m.cmd === 'exit') {
      await profile.exit();
      server.forceShutdown();
      process.exit(0);
    }
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
