// The cost of ACL enforcement, ACLs off vs on in the same run: HTTP ingest
// (catalog registrations acknowledged per second, a token with write rights that
// are checked on every write) and Subscribe fan-out (1,000 subscribers of one
// service, events delivered per second while registrations stream in; with ACLs
// on every event passes the subscriber's authorizer). In-process hub, memory
// log, loopback. Run with no other benchmark on the machine: `npm run bench:acl`.
import { loadavg } from 'node:os';
import * as grpc from '@grpc/grpc-js';
import { ALL_PARTS, type Hub } from '../src/hub';
import { loadSubscribeProto } from '../src/subscribe/proto';
import { startHub } from '../test/helpers/hub';

const WRITES = Number(process.env['WRITES'] ?? 4000);
const CONCURRENCY = 64;
const SUBSCRIBERS = Number(process.env['SUBSCRIBERS'] ?? 1000);
const EVENTS = Number(process.env['EVENTS'] ?? 200);
const ROOT = '11111111-2222-4333-8444-555555555555';

async function put(hub: Hub, token: string, path: string, body: unknown): Promise<any> {
  const res = await fetch(`${hub.httpUrl}${path}`, {
    method: 'PUT',
    body: JSON.stringify(body),
    headers: { 'x-consul-token': token },
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

async function tokenFor(hub: Hub, rules: string): Promise<string> {
  const p = await put(hub, ROOT, '/v1/acl/policy', {
    Name: `bench-${Math.random().toString(36).slice(2)}`,
    Rules: rules,
  });
  return (await put(hub, ROOT, '/v1/acl/token', { Policies: [{ ID: p.ID }] })).SecretID;
}

async function ingest(hub: Hub, token: string): Promise<number> {
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < WRITES) {
        const i = next++;
        await put(hub, token, '/v1/catalog/register', {
          Node: `node-${i % 200}`,
          Address: '10.0.0.1',
          Service: { Service: `svc-${i % 50}`, ID: `i-${i}`, Port: 8000 + (i % 1000) },
        });
      }
    }),
  );
  return WRITES / (Number(process.hrtime.bigint() - started) / 1e9);
}

async function fanout(hub: Hub, token: string): Promise<number> {
  const Ctor = grpc.makeGenericClientConstructor(loadSubscribeProto().service, 'StateChangeSubscription');
  const clients = Array.from(
    { length: 10 },
    (_, i) =>
      new Ctor(`127.0.0.1:${hub.grpcPort}`, grpc.credentials.createInsecure(), {
        'grpc.use_local_subchannel_pool': 1,
        'bench.c': i,
      } as grpc.ChannelOptions),
  );
  await put(hub, token, '/v1/catalog/register', {
    Node: 'web-node',
    Address: '10.0.0.1',
    Service: { Service: 'web', ID: 'web-0', Port: 80 },
  });
  let delivered = 0;
  let live = 0;
  const calls: grpc.ClientReadableStream<any>[] = [];
  let resolveLive: () => void = () => {};
  const allLive = new Promise<void>((r) => (resolveLive = r));
  let resolveDone: () => void = () => {};
  const done = new Promise<void>((r) => (resolveDone = r));
  for (let i = 0; i < SUBSCRIBERS; i++) {
    const call = (clients[i % clients.length] as any).Subscribe({
      Topic: 'ServiceHealth',
      NamedSubject: { Key: 'web' },
      Token: token,
    });
    let isLive = false;
    call.on('data', (e: any) => {
      if (!isLive) {
        if (e.Payload === 'EndOfSnapshot' && ++live === SUBSCRIBERS) resolveLive();
        isLive = e.Payload === 'EndOfSnapshot';
        return;
      }
      if (++delivered === SUBSCRIBERS * EVENTS) resolveDone();
    });
    call.on('error', () => undefined);
    calls.push(call);
  }
  await allLive;
  const started = process.hrtime.bigint();
  for (let i = 1; i <= EVENTS; i++)
    await put(hub, token, '/v1/catalog/register', {
      Node: 'web-node',
      Address: '10.0.0.1',
      Service: { Service: 'web', ID: `web-${i}`, Port: 80 },
    });
  await done;
  const rate = delivered / (Number(process.hrtime.bigint() - started) / 1e9);
  for (const c of calls) c.cancel();
  for (const c of clients) c.close();
  return rate;
}

async function run(acl: boolean): Promise<{ ingest: number; fanout: number }> {
  const hub = await startHub(
    acl ? { aclEnabled: true, aclDefaultPolicy: 'deny', aclInitialManagementToken: ROOT } : {},
    { parts: ALL_PARTS, grpcGraceMs: 100 },
  );
  try {
    // A real, non-management token: every write and event is checked against its rules.
    const token = acl
      ? await tokenFor(hub, 'service_prefix "" { policy = "write" }\nnode_prefix "" { policy = "write" }')
      : '';
    return { ingest: await ingest(hub, token), fanout: await fanout(hub, token) };
  } finally {
    await hub.close();
  }
}

(async () => {
  const off = await run(false);
  const on = await run(true);
  const pct = (a: number, b: number) => `${(((b - a) / a) * 100).toFixed(1)}%`;
  console.log(
    `bench/acl: ${WRITES} writes at concurrency ${CONCURRENCY}; ${SUBSCRIBERS} subscribers × ${EVENTS} events`,
  );
  console.log(
    `ingest  ACLs off ${off.ingest.toFixed(0)} writes/s | on ${on.ingest.toFixed(0)} writes/s | change ${pct(off.ingest, on.ingest)}`,
  );
  console.log(
    `fanout  ACLs off ${off.fanout.toFixed(0)} events/s | on ${on.fanout.toFixed(0)} events/s | change ${pct(off.fanout, on.fanout)}`,
  );
  console.log(
    `load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  process.exit(0);
})();
