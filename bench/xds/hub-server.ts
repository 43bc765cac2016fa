// Bench server process, hub mode: memory log → catalog → views → catalog xDS
// provider → xDS server, with S services of one instance each. A change
// re-registers one instance on a new port; t0 is when the write is acknowledged.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import * as grpc from '@grpc/grpc-js';
import pino from 'pino';
import { createCatalog } from '../../src/catalog/index';
import type { NodeInput, ServiceInput } from '../../src/catalog/commands';
import { DEFAULTS, type Config } from '../../src/config';
import { createMemoryLog } from '../../src/log/memory';
import { createCatalogXdsProvider } from '../../src/xds/translate/catalog-provider';
import { createXdsServer } from '../../src/xds/transport/server';
import { benchViews } from './views';
import { now, type ServerCommand, type ServerReply } from './protocol';

const send = (m: ServerReply) => {
  if (process.connected) process.send!(m);
};
// The parent is gone (finished or failed): leave no orphan behind.
process.on('disconnect', () => process.exit(0));
const logger = pino({ level: 'warn' }, pino.destination(2));
// XDS_BENCH_TRIM=0: the hub without the malloc_trim after initial syncs (mode hub-notrim).
const config: Config = { ...DEFAULTS, store: { kind: 'memory' }, xdsStreamRateLimit: 1_000_000, memoryTrim: process.env['XDS_BENCH_TRIM'] !== '0' };

const nodeOf = (i: number): NodeInput => ({
  ID: '',
  Node: `node-${i}`,
  Address: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
  Datacenter: 'dc1',
  TaggedAddresses: {},
  Meta: {},
});
const serviceOf = (i: number, port: number): ServiceInput => ({
  Kind: '',
  ID: `svc-${i}-1`,
  Service: `svc-${i}`,
  Tags: [],
  Address: '',
  TaggedAddresses: {},
  Meta: {},
  Port: port,
  Weights: { Passing: 1, Warning: 1 },
  EnableTagOverride: false,
});

// XDS_BENCH_PROFILE=<file.cpuprofile>: CPU profile of the change rounds only (not connect/sync).
const profileTo = process.env['XDS_BENCH_PROFILE'];
const session = new Session();
let profiling = false;
function startProfile(): void {
  profiling = true;
  session.connect();
  session.post('Profiler.enable', () => session.post('Profiler.start'));
}
function stopProfile(): Promise<void> {
  profiling = false;
  return new Promise((resolve) =>
    session.post('Profiler.stop', (err, result) => {
      if (!err) writeFileSync(profileTo!, JSON.stringify(result.profile));
      resolve();
    }),
  );
}

async function main() {
  const log = createMemoryLog();
  const catalog = await createCatalog({ log, logger });
  const views = benchViews(catalog, logger);
  const provider = createCatalogXdsProvider({ views, config, logger });
  // XDS_BENCH_SYNC_LIMIT=<n>: initial-sync concurrency (sync-gate.ts) instead of the default; 1000000: effectively off.
  const syncLimit = Number(process.env['XDS_BENCH_SYNC_LIMIT'] ?? 0);
  const xds = createXdsServer({ provider, config, logger, ...(syncLimit > 0 ? { syncGate: { limit: syncLimit } } : {}) });
  const server = new grpc.Server({ 'grpc.max_concurrent_streams': 10 });
  xds.addTo(server);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
  );
  const ports = new Map<number, number>();
  send({ kind: 'listening', port });

  process.on('message', async (m: ServerCommand) => {
    if (m.cmd === 'setup') {
      const t = now();
      const batch: Promise<unknown>[] = [];
      for (let i = 0; i < m.services; i++) {
        ports.set(i, 8080);
        batch.push(catalog.submit({ type: 'register', node: nodeOf(i), service: serviceOf(i, 8080), checks: [], skipNodeUpdate: false }));
        if (batch.length >= 200) await Promise.all(batch.splice(0));
      }
      await Promise.all(batch);
      await provider.ready();
      // Let the provider's flush for the last registrations run.
      while (provider.stats().services < m.services) await new Promise((r) => setTimeout(r, 20));
      send({ kind: 'setup-done', ms: now() - t });
      // XDS_BENCH_PROFILE_CONNECT=1: profile the connect + initial sync phase instead of the changes.
      if (profileTo && process.env['XDS_BENCH_PROFILE_CONNECT'] === '1') startProfile();
    } else if (m.cmd === 'stats') {
      (globalThis as { gc?: () => void }).gc?.();
      const mem = process.memoryUsage();
      const cpu = process.cpuUsage();
      send({ kind: 'stats', rss: mem.rss, heapUsed: mem.heapUsed, external: mem.external, arrayBuffers: mem.arrayBuffers, cpuUserUs: cpu.user, cpuSystemUs: cpu.system, streams: xds.streams().length, trim: xds.memoryTrim() });
    } else if (m.cmd === 'change') {
      if (profileTo && profiling && process.env['XDS_BENCH_PROFILE_CONNECT'] === '1') await stopProfile();
      else if (profileTo && !profiling) startProfile();
      const next = (ports.get(m.service) ?? 8080) + 1;
      ports.set(m.service, next);
      const result = await catalog.submit({ type: 'register', node: nodeOf(m.service), service: serviceOf(m.service, next), checks: [], skipNodeUpdate: true });
      if (!result.ok) throw new Error(`change failed: ${JSON.stringify(result.error)}`);
      send({ kind: 'changed', t0: now(), round: m.round, name: `svc-${m.service}` });
    } else if (m.cmd === 'exit') {
      if (profiling) await stopProfile();
      xds.close();
      provider.close();
      views.close();
      server.forceShutdown();
      await catalog.close();
      process.exit(0);
    }
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
