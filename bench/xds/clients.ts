// A bench client process: `count` simulated Envoys, each on its own HTTP/2
// connection (local subchannel pool), each with one Delta ADS stream that
// subscribes as Envoy does — wildcard CDS, then EDS by name for every cluster —
// and ACKs every response. Reports when every client holds all S assignments,
// per armed change when each client received the changed assignment, and, for
// churn runs, responses per stream and how stale the sampled clients were.
import * as grpc from '@grpc/grpc-js';
import { type Received, readDeltaResponse } from './decode';
import {
  CDS,
  type ChurnChange,
  type ClientCommand,
  type ClientReply,
  DELTA_ADS,
  deltaRequest,
  EDS,
  type Mode,
  now,
  pinSelf,
} from './protocol';

pinSelf();
const Req = deltaRequest();
const send = (m: ClientReply) => {
  if (process.connected) process.send!(m);
};
// The parent is gone (finished or failed): leave no orphan behind.
process.on('disconnect', () => process.exit(0));

interface Sim {
  index: number;
  ready: boolean;
  edsNames: Set<string>;
  edsSubscribed: boolean;
  armedBytes: number;
  arrivedAt: number;
  /** Responses during the churn window. */
  churnPushes: number;
  /** Sampled clients: service name → (arrival time, port) in arrival order. */
  held: Map<string, { at: number; port: number }[]> | undefined;
  call: grpc.ClientDuplexStream<Record<string, unknown>, Received>;
  client: grpc.Client;
}

const sims: Sim[] = [];
let readyCount = 0;
let armed: { name: string; round: number; pending: number; timer: NodeJS.Timeout } | undefined;
/** Counting responses per stream (churn window), and recording sampled clients' ports (until churn-stop). */
let counting = false;
let churning = false;
let total = 0;
let mode: Mode = 'hub';
let services = 0;
let refused = 0;
let failed = 0;

function serialize(m: Record<string, unknown>): Buffer {
  return Buffer.from(Req.encode(Req.fromObject(m)).finish());
}

function deserializer(sampled: () => boolean) {
  return (buf: Buffer): Received => readDeltaResponse(buf, sampled());
}

function markReady(sim: Sim) {
  if (sim.ready) return;
  sim.ready = true;
  readyCount++;
  if (readyCount % 500 === 0 || readyCount === total)
    send({ kind: 'ready', count: readyCount, at: now(), refused, failed });
}

function finishArm() {
  if (!armed) return;
  clearTimeout(armed.timer);
  const times = sims.map((s) => s.arrivedAt).filter((t) => t > 0);
  send({
    kind: 'arrived',
    round: armed.round,
    times,
    bytes: sims.filter((s) => s.arrivedAt > 0).map((s) => s.armedBytes),
    missing: sims.length - times.length,
  });
  armed = undefined;
}

function onResponse(sim: Sim, r: Received) {
  const t = now();
  if (armed) sim.armedBytes += r.bytes;
  if (counting) sim.churnPushes++;
  sim.call.write({ typeUrl: r.typeUrl, responseNonce: r.nonce });
  if (r.typeUrl === CDS && !sim.edsSubscribed) {
    sim.edsSubscribed = true;
    sim.call.write({ typeUrl: EDS, resourceNamesSubscribe: r.names });
  } else if (r.typeUrl === EDS) {
    for (const n of r.names) sim.edsNames.add(n);
    if (!sim.ready && sim.edsNames.size >= services) markReady(sim);
    if (churning && sim.held && r.ports) {
      r.names.forEach((name, i) => {
        let list = sim.held!.get(name);
        if (!list) sim.held!.set(name, (list = []));
        list.push({ at: t, port: r.ports![i]! });
      });
    }
  }
  if (armed && sim.arrivedAt === 0 && r.names.includes(armed.name) && (mode === 'bare' || r.typeUrl === EDS)) {
    sim.arrivedAt = t;
    if (--armed.pending === 0) finishArm();
  }
}

let reported = 0;
let exiting = false;

/** Opens (or reopens) the client's Delta ADS stream and subscribes as Envoy does. */
function open(sim: Sim): void {
  const call = sim.client.makeBidiStreamRequest(
    DELTA_ADS,
    serialize,
    deserializer(() => churning && sim.held !== undefined),
  );
  sim.call = call;
  sim.edsSubscribed = false;
  call.on('data', (r: Received) => onResponse(sim, r));
  call.on('error', (err: grpc.ServiceError) => {
    if (exiting || err.code === grpc.status.CANCELLED) return;
    if (err.code === grpc.status.RESOURCE_EXHAUSTED) refused++;
    else failed++;
    // As Envoy does: reconnect with a jittered backoff.
    if (++reported <= 3)
      send({ kind: 'error', message: `client ${sim.index}: ${err.code} ${err.details} (reconnecting)` });
    setTimeout(() => open(sim), 500 + Math.random() * 1500);
  });
  call.write({
    node: { id: `bench-${sim.index}`, cluster: 'bench', userAgentName: 'envoy' },
    typeUrl: CDS,
    resourceNamesSubscribe: ['*'],
  });
  // The bare server never answers the subscription; its clients are ready once the stream is open.
  if (mode === 'bare') call.once('metadata', () => markReady(sim));
}

function connect(port: number, index: number, sampled: boolean): Sim {
  // A distinct channel per client, and no shared subchannel: one connection each, as N Envoys would have.
  const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), {
    'grpc.use_local_subchannel_pool': 1,
  });
  const sim = {
    index,
    ready: false,
    edsNames: new Set<string>(),
    edsSubscribed: false,
    armedBytes: 0,
    arrivedAt: 0,
    churnPushes: 0,
    held: sampled ? new Map() : undefined,
    client,
  } as Sim;
  open(sim);
  return sim;
}

/** Staleness of each change for each sampled client: from its acknowledgement until the client holds that port or a later one. */
function staleness(changes: readonly ChurnChange[]): { values: number[]; undelivered: number } {
  const values: number[] = [];
  let undelivered = 0;
  for (const sim of sims) {
    if (!sim.held) continue;
    for (const c of changes) {
      const got = sim.held.get(c.name)?.find((h) => h.port >= c.port);
      if (got) values.push(Math.max(0, Math.round((got.at - c.at) * 10) / 10));
      else undelivered++;
    }
  }
  return { values, undelivered };
}

process.on('message', async (m: ClientCommand) => {
  if (m.cmd === 'connect') {
    mode = m.mode;
    services = m.services;
    total = m.count;
    for (let i = 0; i < m.count; i++) {
      sims.push(connect(m.port, m.offset + i, i < m.sample));
      // Spread connection setup so the server's accept path is not one burst (a storm is one burst).
      if (!m.storm && i % 50 === 49) await new Promise((r) => setTimeout(r, 5));
    }
  } else if (m.cmd === 'arm') {
    for (const s of sims) {
      s.arrivedAt = 0;
      s.armedBytes = 0;
    }
    armed = { name: m.name, round: m.round, pending: sims.length, timer: setTimeout(finishArm, 60_000) };
    send({ kind: 'armed', round: m.round });
  } else if (m.cmd === 'churn-start') {
    for (const s of sims) s.churnPushes = 0;
    counting = churning = true;
  } else if (m.cmd === 'churn-writes-done') {
    counting = false;
  } else if (m.cmd === 'churn-stop') {
    churning = false;
    const { values, undelivered } = staleness(m.changes);
    send({ kind: 'churned', pushes: sims.map((s) => s.churnPushes), staleness: values, undelivered });
  } else if (m.cmd === 'exit') {
    exiting = true;
    if (refused + failed > 0)
      send({ kind: 'error', message: `${refused} stream(s) refused and ${failed} failed; all reconnected` });
    for (const s of sims) {
      s.call.cancel();
      s.client.close();
    }
    process.exit(0);
  }
});
send({ kind: 'loaded' });
