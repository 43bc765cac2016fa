// Bench server process, hub mode: a real hub (createHub: log, catalog, views,
// HTTP API, gRPC with Subscribe and xDS), configured as `xdshub serve` would be
// with the flags in XDS_BENCH_HUB_ARGS (default: none, i.e. the defaults) on
// ports 0 and a fresh data directory (on /dev/shm when there is one). Setup registers S services of one
// instance each straight through the catalog; changes come over the HTTP API
// from the parent, which takes t0 when the write is acknowledged.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import type { NodeInput, ServiceInput } from '../../src/catalog/commands';
import { parseConfig } from '../../src/config';
import { startHeapGrowth } from '../../src/heap-growth';
import { ALL_PARTS, createHub } from '../../src/hub';
import { roundProfile } from './profile';
import { cpuNowUs, now, pinSelf, processStats, type ServerCommand, type ServerReply, settleMemory } from './protocol';

const send = (m: ServerReply) => {
  if (process.connected) process.send!(m);
};
// The parent is gone (finished or failed): leave no orphan behind.
process.on('disconnect', () => process.exit(0));
pinSelf();
const logger = pino({ level: 'error' }, pino.destination(2));

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

const profile = roundProfile('hub');

async function main() {
  // The SQLite log (the default store) on tmpfs when there is one: this bench measures the xDS path, and on a
  // machine whose disk other work keeps busy, fsync latency would otherwise decide every figure.
  const dataDir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'xdshub-bench-'));
  const args = (process.env['XDS_BENCH_HUB_ARGS'] ?? '').split(/\s+/).filter(Boolean);
  if (process.env['XDS_BENCH_TRIM'] === '0') args.push('--memory-trim=false');
  const config = {
    ...parseConfig(args, {}),
    httpPort: 0,
    grpcPort: 0,
    dataDir,
    logLevel: 'warn' as const,
    nodeName: 'bench-hub',
  };
  // As `xdshub serve` does (src/cli/serve.ts): the process's V8 heap growth from --gc-heap-growth.
  startHeapGrowth(config.gcHeapGrowth);
  const hub = await createHub(config, logger, { grpcGraceMs: 200, parts: ALL_PARTS });
  const { xds, provider } = hub;
  send({ kind: 'listening', port: hub.grpcPort, httpUrl: hub.httpUrl });

  process.on('message', async (m: ServerCommand) => {
    if (m.cmd === 'cpu-mark') return send({ kind: 'cpu-mark', id: m.id, cpuUs: cpuNowUs() });
    if (m.cmd === 'setup') {
      const t = now();
      const batch: Promise<unknown>[] = [];
      for (let i = 0; i < m.services; i++) {
        batch.push(
          hub.catalog.submit({
            type: 'register',
            node: nodeOf(i),
            service: serviceOf(i, 8080),
            checks: [],
            skipNodeUpdate: false,
          }),
        );
        if (batch.length >= 200) await Promise.all(batch.splice(0));
      }
      await Promise.all(batch);
      // Until the xDS layer serves every service.
      await provider!.ready();
      while (provider!.stats().services < m.services) await new Promise((r) => setTimeout(r, 20));
      send({ kind: 'setup-done', ms: now() - t });
      profile.setupDone();
    } else if (m.cmd === 'rounds-start') {
      send({ kind: 'stats', ...processStats(xds!.streams().length), steps: xds!.stepStats() });
      profile.roundsStart();
    } else if (m.cmd === 'stats') {
      // The second stats call is the "connected" reading: the change rounds follow, and the profile covers them.
      await profile.stats();
      if (m.settle) await settleMemory();
      const stats = processStats(xds!.streams().length, true);
      const refused = (await xds!.metrics.rejectedStreams.get()).values.reduce((s, v) => s + v.value, 0);
      send({ kind: 'stats', ...stats, trim: xds!.memoryTrim(), refused, steps: xds!.stepStats() });
    } else if (m.cmd === 'change') {
      throw new Error('the hub takes its changes over HTTP');
    } else if (m.cmd === 'exit') {
      await profile.exit();
      await hub.close();
      rmSync(dataDir, { recursive: true, force: true });
      process.exit(0);
    }
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
