// Where the Redis log lives and how to reach it, from `--store` and the --redis-*
// flags, as the options ioredis takes:
//   redis://[user:password@]host:port[/db]        one server
//   rediss://…                                     the same over TLS
//   redis-sentinel://[user:password@]host:port[,host:port…]/mastername
//   rediss-sentinel://…                            Sentinel, TLS to sentinels and servers
// A user/password in a sentinel URL is the servers' (ioredis `username`/`password`);
// sentinels that need their own take --redis-sentinel-password.
import { readFileSync } from 'node:fs';
import type { RedisOptions } from 'ioredis';
import { invalid } from '../errors';

/** The --redis-* flags (config.ts). */
export interface RedisClientConfig {
  /** Replicas that must hold an append (Redis WAIT) before it is acknowledged; 0 = do not wait. */
  waitReplicas: number;
  /** Password for the Redis servers (overrides one in the URL). */
  password?: string;
  /** Password for the sentinels, when they require one. */
  sentinelPassword?: string;
  /** PEM file of the CA that signed the servers' (and sentinels') TLS certificates; default: the system CAs. */
  tlsCaFile?: string;
}

export const DEFAULT_REDIS_CLIENT: RedisClientConfig = { waitReplicas: 0 };

/** What ioredis needs to connect, and how messages name it (never with a password). */
export interface RedisConnection {
  /** Standalone: the URL ioredis parses itself. */
  url?: string;
  options: RedisOptions;
  label: string;
}

interface ParsedUrl {
  sentinel: boolean;
  tls: boolean;
  hosts: { host: string; port: number }[];
  path: string;
  username: string;
  password: string;
}

const SCHEMES: Record<string, { sentinel: boolean; tls: boolean }> = {
  'redis:': { sentinel: false, tls: false },
  'rediss:': { sentinel: false, tls: true },
  'redis-sentinel:': { sentinel: true, tls: false },
  'rediss-sentinel:': { sentinel: true, tls: true },
};

/** Checks a --store redis URL (config time): a clear error naming the flag, or the parts. */
export function parseRedisUrl(text: string): ParsedUrl {
  const m = /^([a-z-]+:)\/\/(?:([^@/]*)@)?([^/?#]*)(\/[^?#]*)?$/.exec(text);
  const scheme = m ? SCHEMES[m[1]!] : undefined;
  if (!m || !scheme) {
    throw invalid(
      'store',
      `expected redis://host:port, rediss://…, redis-sentinel://host:port[,host:port]/mastername or rediss-sentinel://…, got "${redact(text)}"`,
    );
  }
  const [user = '', pass = ''] = (m[2] ?? '').split(':');
  const hostList = m[3]!.split(',').filter((h) => h !== '');
  if (hostList.length === 0) throw invalid('store', `no host in "${redact(text)}"`);
  if (!scheme.sentinel && hostList.length > 1)
    throw invalid('store', `several hosts need redis-sentinel://, got "${redact(text)}"`);
  const hosts = hostList.map((h) => {
    const hm = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(h);
    const port = Number(hm?.[2] ?? (scheme.sentinel ? 26379 : 6379));
    if (!hm || !Number.isInteger(port) || port < 1 || port > 65535) throw invalid('store', `not host:port: "${h}"`);
    return { host: hm[1]!.replace(/^\[|\]$/g, ''), port };
  });
  const path = (m[4] ?? '').replace(/^\//, '');
  if (scheme.sentinel && path === '')
    throw invalid(
      'store',
      `a sentinel URL names the master: redis-sentinel://host:port/mastername, got "${redact(text)}"`,
    );
  return { ...scheme, hosts, path, username: decodeURIComponent(user), password: decodeURIComponent(pass) };
}

/** The URL as messages may show it: no password. */
export function redact(url: string): string {
  return url.replace(
    /^([a-z-]+:\/\/)([^@/]*)@/,
    (_all, scheme: string, auth: string) => `${scheme}${auth.includes(':') ? `${auth.split(':')[0]}:***` : auth}@`,
  );
}

/** Builds the ioredis options for a --store URL plus the --redis-* flags (reads the CA file). */
export function redisConnection(url: string, client: RedisClientConfig = DEFAULT_REDIS_CLIENT): RedisConnection {
  const parsed = parseRedisUrl(url);
  const label = `redis log ${redact(url)}`;
  let ca: Buffer | undefined;
  if (client.tlsCaFile !== undefined) {
    try {
      ca = readFileSync(client.tlsCaFile);
    } catch (err) {
      throw invalid('redis-tls-ca', `cannot read ${client.tlsCaFile}: ${(err as Error).message}`);
    }
  }
  const tls = parsed.tls ? (ca ? { ca } : {}) : undefined;
  const auth: RedisOptions = {};
  if (parsed.username) auth.username = parsed.username;
  if (parsed.password) auth.password = parsed.password;
  if (client.password !== undefined) auth.password = client.password;
  if (!parsed.sentinel) {
    // ioredis parses the URL itself (host, port, db, user, password, TLS for rediss).
    return { url, options: { ...auth, ...(tls ? { tls } : {}) }, label };
  }
  return {
    options: {
      ...auth,
      sentinels: parsed.hosts,
      name: parsed.path,
      ...(client.sentinelPassword !== undefined ? { sentinelPassword: client.sentinelPassword } : {}),
      ...(tls ? { tls, sentinelTLS: tls, enableTLSForSentinelMode: true } : {}),
      // Follow a failover as soon as the sentinels announce it, not at the next failed command.
      failoverDetector: true,
      // Keep asking the sentinels during an outage; the log decides what callers see.
      sentinelRetryStrategy: (attempt: number) => Math.min(attempt * 100, 1_000),
    },
    label,
  };
}
