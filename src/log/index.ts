// Opens the log the config asks for. The one place that maps StoreConfig to a store.
import { join } from 'node:path';
import Redis from 'ioredis';
import type pino from 'pino';
import { HubError, invalid } from '../errors';
import type { Log } from './log';
import { createMemoryLog } from './memory';
import { createRedisLog } from './redis';
import { DEFAULT_REDIS_CLIENT, type RedisClientConfig, type RedisConnection, redisConnection } from './redis-target';
import { createSqliteLog } from './sqlite';
import type { StoreConfig, StoreKind } from './store-kinds';

export type { Log, LogEntry, LogSnapshot } from './log';
export { createMemoryLog } from './memory';
export { createRedisLog, DEFAULT_WRITE_TIMEOUT_MS, type RedisLogOptions } from './redis';
export { type RedisClientConfig, type RedisConnection, redisConnection } from './redis-target';
export { createSqliteLog, DEFAULT_SQLITE_SYNCHRONOUS, type SqliteLogOptions } from './sqlite';
export { parseStore, STORE_KINDS, type StoreConfig, type StoreKind, storeKind } from './store-kinds';

/** File name of the embedded log inside the data directory. */
export const SQLITE_FILE = 'xdshub.db';

/**
 * Fails at startup, in one connection attempt, when Redis is unreachable; the log's
 * own client would otherwise keep retrying while every write answers 503.
 */
async function probeRedis(connection: RedisConnection): Promise<void> {
  const options = {
    ...connection.options,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    sentinelRetryStrategy: () => null,
  };
  const probe = connection.url === undefined ? new Redis(options) : new Redis(connection.url, options);
  let failure: Error | undefined;
  probe.on('error', (err: Error) => (failure = err));
  try {
    await probe.connect();
    await probe.ping();
  } catch (err) {
    throw new HubError('INTERNAL', `cannot reach ${connection.label}: ${(failure ?? (err as Error)).message}`, {
      cause: err,
    });
  } finally {
    probe.disconnect();
  }
}

type Opener = (
  store: StoreConfig,
  dataDir: string,
  logger: pino.Logger | undefined,
  redis: RedisClientConfig,
) => Promise<Log>;

/** One opener per store kind (store-kinds.ts declares the kinds): a kind without one fails the build here. */
const OPENERS: Record<StoreKind, Opener> = {
  memory: async () => createMemoryLog(),
  sqlite: async (_store, dataDir) => createSqliteLog({ path: join(dataDir, SQLITE_FILE) }),
  async redis(store, _dataDir, logger, redis) {
    if (!store.url) throw invalid('store', 'a redis store needs a redis:// or redis-sentinel:// URL');
    const connection = redisConnection(store.url, redis);
    await probeRedis(connection);
    return createRedisLog({ connection, logger, waitReplicas: redis.waitReplicas });
  },
};

export async function openLog(
  store: StoreConfig,
  dataDir: string,
  logger?: pino.Logger,
  redis: RedisClientConfig = DEFAULT_REDIS_CLIENT,
): Promise<Log> {
  const open = OPENERS[store.kind] as Opener | undefined;
  if (!open) throw invalid('store', `unknown store kind ${String((store as { kind: unknown }).kind)}`);
  return open(store, dataDir, logger, redis);
}
