// Bench server process, fan-out mode: a fan-out hub (createFanoutHub, as
// `xdshub serve --upstream … --upstream-http …` runs it) of the core hub named
// by XDS_BENCH_UPSTREAM (gRPC host:port) and XDS_BENCH_UPSTREAM_HTTP, on port 0.
// Setup waits until its xDS layer serves the S services the core hub holds;
// changes are written to the core hub by the parent.
import pino from 'pino';
import { parseConfig } from '../../src/config';
import { createFanoutHub } from '../../src/fanout/hub';
import { now, processStats, type ServerCommand, type ServerReply } from './protocol';

const send = (m: ServerReply) => {
  if (process.connected) process.send!(m);
};
process.on('disconnect', () => process.exit(0));
const logger = pino({ level: 'error' }, pino.destination(2));

async function main() {
  const args = (process.env['XDS_BENCH_HUB_ARGS'] ?? '').split(/\s+/).filter(Boolean);
  const upstream = [
    '--upstream',
    process.env['XDS_BENCH_UPSTREAM']!,
    '--upstream-http',
    process.env['XDS_BENCH_UPSTREAM_HTTP']!,
  ];
  const config = {
    ...parseConfig([...args, ...upstream], {}),
    httpPort: 0,
    grpcPort: 0,
    logLevel: 'warn' as const,
    nodeName: 'bench-fanout',
  };
  const hub = await createFanoutHub(config, logger);
  send({ kind: 'listening', port: hub.grpcPort, httpUrl: hub.httpUrl });
  process.on('message', async (m: ServerCommand) => {
    if (m.cmd === 'setup') {
      const t = now();
      await hub.provider.ready();
      while (hub.provider.stats().services < m.services) await new Promise((r) => setTimeout(r, 20));
      send({ kind: 'setup-done', ms: now() - t });
    } else if (m.cmd === 'stats') {
      send({ kind: 'stats', ...processStats(hub.xds.streams().length, true) });
    } else if (m.cmd === 'change') {
      throw new Error('changes are written to the core hub');
    } else if (m.cmd === 'exit') {
      await hub.close();
      process.exit(0);
    }
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
