// `xdshub serve`: parse the config once, start the hub, print one startup line
// on stdout (scripts parse it for the real ports), and on SIGINT/SIGTERM close
// the hub in order and exit 0.
import { type Config, parseConfig } from '../config';
import { optionsHelp } from '../config-options';
import { isHubError } from '../errors';
import { createFanoutHub } from '../fanout/hub';
import { startHeapGrowth } from '../heap-growth';
import { ALL_PARTS, createHub } from '../hub';
import { storeKind } from '../log/store-kinds';
import { createLogger } from '../logger';
import { ttlTypesAdvice } from '../xds/transport/rules/ttl';

export function startupLine(hub: { httpUrl: string; grpcPort: number; config: Config }): string {
  const { config } = hub;
  const host = config.bind === '0.0.0.0' || config.bind === '::' ? '127.0.0.1' : config.bind;
  if (config.upstream !== undefined) {
    return `xdshub listening http=${hub.httpUrl} grpc=${host}:${hub.grpcPort} store=none (fan-out of grpc=${config.upstream} http=${config.upstreamHttp}) node=${config.nodeName}`;
  }
  const store = storeKind(config.store).describe(config.store, config.dataDir);
  return `xdshub listening http=${hub.httpUrl} grpc=${host}:${hub.grpcPort} store=${store} node=${config.nodeName}`;
}

export async function run(argv: string[], env: Record<string, string | undefined>): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(optionsHelp());
    return 0;
  }
  let config: Config;
  try {
    config = parseConfig(argv, env);
  } catch (err) {
    // parseArgs throws TypeError with code ERR_PARSE_ARGS_*; ours throw HubError.
    const message = err instanceof Error ? err.message : String(err);
    if (isHubError(err) || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`xdshub serve: ${message}\n`);
      return 2;
    }
    throw err;
  }

  const logger = createLogger(config.logLevel);
  startHeapGrowth(config.gcHeapGrowth);
  const ttlAdvice = ttlTypesAdvice(config.resourceTtlMs, config.resourceTtlTypes);
  if (ttlAdvice) logger.warn({ resourceTtlTypes: config.resourceTtlTypes }, ttlAdvice);
  // A fan-out hub (--upstream, docs/fanout.md) keeps no log: it relays another hub's Subscribe streams.
  let hub: Awaited<ReturnType<typeof createHub>> | Awaited<ReturnType<typeof createFanoutHub>>;
  try {
    hub =
      config.upstream !== undefined
        ? await createFanoutHub(config, logger)
        : await createHub(config, logger, { parts: ALL_PARTS });
  } catch (err) {
    // A data directory others may read is a setting to fix, like a bad flag: exit 2 naming it.
    if (!isHubError(err, 'INVALID_ARGUMENT') || err.field !== 'data-dir') throw err;
    process.stderr.write(`xdshub serve: ${err.message}\n`);
    return 2;
  }
  process.stdout.write(`${startupLine(hub)}\n`);

  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  logger.info({ signal }, 'shutting down');
  // A second signal while closing means "now": exit without waiting (the log
  // is the truth; nothing acknowledged is lost).
  const force = (again: NodeJS.Signals) => {
    logger.warn({ signal: again }, 'second signal: exiting without finishing shutdown');
    logger.flush();
    process.exit(1);
  };
  process.once('SIGINT', force);
  process.once('SIGTERM', force);
  // Every step of close() is bounded on its own; this is the backstop that keeps a
  // shutdown from hanging on something that is not (exit 1 says it was cut short).
  let timer: NodeJS.Timeout | undefined;
  const finished = await Promise.race([
    hub.close().then(() => true),
    new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), config.shutdownTimeoutMs))),
  ]);
  clearTimeout(timer);
  if (!finished) {
    logger.error({ timeoutMs: config.shutdownTimeoutMs }, 'shutdown did not finish within --shutdown-timeout; exiting');
    logger.flush();
    process.exit(1); // what did not finish may still hold the event loop open
  }
  logger.flush();
  return 0;
}
