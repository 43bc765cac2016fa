// KV entries and sessions as the catalog stores them (docs/kv.md). Values are
// kept base64-encoded, as Consul's JSON carries them, and Flags as a decimal
// string: Consul's flags are uint64 and `consul lock` writes one above 2^53.

export interface KvEntry {
  Key: string;
  /** Decimal uint64. */
  Flags: string;
  /** Base64; null for an empty value (Consul's JSON shows `null`). */
  Value: string | null;
  /** Times the key was acquired by a session (Consul's LockIndex). */
  LockIndex: number;
  /** The session holding the lock; absent when unlocked. */
  Session?: string;
  CreateIndex: number;
  ModifyIndex: number;
}

export type SessionBehavior = 'release' | 'delete';

export interface ServiceCheckRef {
  ID: string;
  Namespace: string;
}

export interface Session {
  ID: string;
  Name: string;
  Node: string;
  /** Nanoseconds, as Consul's JSON (a Go time.Duration). */
  LockDelay: number;
  Behavior: SessionBehavior;
  /** Go duration text ("15s") or "" for no TTL. */
  TTL: string;
  NodeChecks: string[];
  ServiceChecks: ServiceCheckRef[] | null;
  CreateIndex: number;
  ModifyIndex: number;
}

export type SessionInput = Omit<Session, 'CreateIndex' | 'ModifyIndex'>;

/** A session plus the index of its creation or last renewal (the TTL clock restarts there; not Consul-visible). */
export interface SessionRow {
  readonly session: Session;
  readonly renewIndex: number;
}

/** Consul's "the node is alive" check; the hub has no Serf, so here it means "the node is registered". */
export const SERF_CHECK_ID = 'serfHealth';

/** Consul's bound on a session's lock delay. */
export const MAX_LOCK_DELAY_NS = 60_000_000_000;

/** Consul times a session's TTL twice over before invalidating it (SessionTTLMultiplier). */
export const SESSION_TTL_MULTIPLIER = 2;

export type KvVerb =
  | 'set'
  | 'cas'
  | 'lock'
  | 'unlock'
  | 'get'
  | 'get-tree'
  | 'check-index'
  | 'check-session'
  | 'check-not-exists'
  | 'delete'
  | 'delete-tree'
  | 'delete-cas';

/** One KV operation, as /v1/kv and /v1/txn ask for it. */
export interface KvOp {
  verb: KvVerb;
  key: string;
  /** Base64 (null: empty) for set, cas, lock, unlock. */
  value?: string | null;
  flags?: string;
  /** cas, delete-cas, check-index: the ModifyIndex expected (0 = must not exist for cas). */
  index?: number;
  /** lock, unlock, check-session. */
  session?: string;
}
