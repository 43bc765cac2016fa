// The log stores the hub can run on, declared once: how `--store` names each,
// and what the rest of the hub may rely on it for. Other modules ask these
// capabilities instead of testing a store's kind; `openLog` (index.ts) holds
// the one opener per kind, as a record over every kind.
import { invalid } from '../errors';
import { parseRedisUrl, redact } from './redis-target';

export type StoreKind = 'sqlite' | 'memory' | 'redis';

export interface StoreConfig {
  kind: StoreKind;
  /** When kind is redis: redis://, rediss://, redis-sentinel:// or rediss-sentinel:// (src/log/redis-target.ts). */
  url?: string;
}

export interface StoreKindSpec {
  /** How `--store` names it, for messages. */
  readonly spelling: string;
  /** Its config when `--store TEXT` names it (throws on a malformed URL of its scheme), else undefined. */
  parse(text: string): StoreConfig | undefined;
  /** Entries survive a restart: the xDS history may be kept beside them. */
  readonly durable: boolean;
  /** Files under --data-dir (created 0700, every file 0600: docs/security.md, "Keys at rest"). */
  readonly usesDataDir: boolean;
  /** Several hubs append to it: a hub may be behind the log and asks for its head (docs/http-api.md, "Blocking queries"). */
  readonly shared: boolean;
  /** Takes the --redis-* flags. */
  readonly redisFlags: boolean;
  /** Where a persisted xDS history lives (docs/operator-tools.md). */
  readonly history: 'none' | 'sqlite-file' | 'redis-keys';
  /** The store as the startup line shows it (no password). */
  describe(store: StoreConfig, dataDir: string): string;
}

export const STORE_KINDS: Readonly<Record<StoreKind, StoreKindSpec>> = {
  sqlite: {
    spelling: 'sqlite',
    parse: (text) => (text === 'sqlite' ? { kind: 'sqlite' } : undefined),
    durable: true,
    usesDataDir: true,
    shared: false,
    redisFlags: false,
    history: 'sqlite-file',
    describe: (_store, dataDir) => `sqlite (${dataDir})`,
  },
  memory: {
    spelling: 'memory',
    parse: (text) => (text === 'memory' ? { kind: 'memory' } : undefined),
    durable: false,
    usesDataDir: false,
    shared: false,
    redisFlags: false,
    history: 'none',
    describe: () => 'memory',
  },
  redis: {
    spelling: 'redis://host:port or redis-sentinel://host:port[,host:port]/mastername',
    parse(text) {
      if (!/^[a-z-]+:\/\//.test(text)) return undefined;
      parseRedisUrl(text); // a clear error now rather than at the first connect
      return { kind: 'redis', url: text };
    },
    durable: true,
    usesDataDir: false,
    shared: true,
    redisFlags: true,
    history: 'redis-keys',
    describe: (store) => redact(store.url ?? ''),
  },
};

/** The registry entry of a store config's kind. */
export function storeKind(store: StoreConfig): StoreKindSpec {
  return STORE_KINDS[store.kind];
}

/** `--store TEXT` → its config; 400-style error naming `store` when no kind takes it. */
export function parseStore(text: string): StoreConfig {
  for (const spec of Object.values(STORE_KINDS)) {
    const store = spec.parse(text);
    if (store) return store;
  }
  const names = Object.values(STORE_KINDS).map((s) => s.spelling);
  throw invalid('store', `expected ${names.join(', ')}, got "${text}"`);
}
