// Bench server process, hub side: memory log → real catalog → publisher → the
// Subscribe gRPC service. On 'start' it writes one instance change per
// sequence number (up to what main allows), stamping the source time in Meta.
import { setTimeout as sleep } from 'node:timers/promises';
import * as grpc from '@grpc/grpc-js';
import pino from 'pino';
import { createCatalog } from '../../src/catalog/index';
import { Topic } from '../../src/catalog/types';
import { createMemoryLog } from '../../src/log/memory';
import { addSubscribeService } from '../../src/subscribe/grpc';
import { createPublisher } from '../../src/subscribe/publisher';
import { createEventEncoder } from '../../src/subscribe/wire';
import { cpuMsSince, type MainToServer, type ServerToMain } from './common';
import { benchCheck, benchNode, benchService } from './instance';

const instances = Number(process.argv[2] ?? 1000);
/** Changes per second; 0 = as fast as main's window allows. */
const perSecond = Number(process.argv[3] ?? 0);
const send = (m: ServerToMain) => process.send?.(m);
const logger = pino({ level: 'silent' });

async function main(): Promise<void> {
  const log = createMemoryLog();
  const catalog = await createCatalog({ log, logger });
  for (let i = 0; i < instances; i++) {
    await catalog.submit({
      type: 'register',
      node: benchNode(i),
      service: benchService(i, 0),
      checks: [benchCheck(i)],
      skipNodeUpdate: false,
    });
  }
  const publisher = createPublisher({ catalog, logger, snapshotCacheTtlMs: 10_000 });
  const server = new grpc.Server();
  addSubscribeService(server, { publisher, logger });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
  );

  let allowUpTo = 0;
  let running = false;
  let produced = 0;
  let wakeProducer: (() => void) | undefined;
  // One change at a time, like the bare server's one round at a time: the
  // source timestamp is taken just before the change is appended, so the
  // latency measured is append + apply + fan-out, not a writer-side queue.
  async function produce(): Promise<void> {
    let seq = 1;
    const startedAt = performance.now();
    while (running) {
      if (seq >= allowUpTo) {
        await new Promise<void>((r) => (wakeProducer = r));
        continue;
      }
      if (perSecond > 0) {
        const wait = startedAt + ((seq - 1) * 1000) / perSecond - performance.now();
        if (wait > 0) await sleep(wait);
      }
      const i = seq % instances;
      await catalog.submit({
        type: 'register',
        node: benchNode(i),
        service: benchService(i, seq),
        checks: [],
        skipNodeUpdate: true,
      });
      produced++;
      seq++;
    }
  }

  const sample = catalog.serviceInstances('web').value[0];
  const eventBytes = sample
    ? createEventEncoder().encode({
        kind: 'events',
        index: 1n,
        events: [
          {
            topic: Topic.ServiceHealth,
            subject: 'web',
            index: 1n,
            payload: { type: 'service-health', op: 'register', csn: sample },
          },
        ],
      }).length
    : 0;
  let producing: Promise<void> | undefined;
  let cpuAtStart = process.cpuUsage();
  process.on('message', async (m: MainToServer) => {
    if (m.type === 'start') {
      cpuAtStart = process.cpuUsage();
      running = true;
      producing = produce();
    } else if (m.type === 'allow') {
      allowUpTo = m.upTo;
      wakeProducer?.();
    } else if (m.type === 'stop') {
      running = false;
      wakeProducer?.();
      await producing;
      const st = publisher.stats();
      send({
        type: 'stats',
        rssBytes: process.memoryUsage().rss,
        produced,
        cpuMs: cpuMsSince(cpuAtStart),
        cacheHits: st.snapshotCacheHits,
        cacheMisses: st.snapshotCacheMisses,
        slowConsumers: st.slowConsumers,
        eventBytes,
      });
      publisher.close();
      server.forceShutdown();
      await catalog.close();
      await log.close();
      process.disconnect();
    }
  });
  send({ type: 'ready', port });
}

void main();
