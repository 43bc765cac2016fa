// The seam between the catalog (state machine + write path) and its readers:
// the HTTP API, the event publisher (Subscribe) and admin tools.
import type { AclTables } from '../acl/state';
import type { ConnectChange, ConnectState } from '../connect/types';
import type { ApplyResult, Command } from './commands';
import type { KvReader } from './kv-reads';
import type { StateMachine } from './state';
import type {
  CatalogEvent,
  CheckServiceNode,
  ConfigEntry,
  ConfigEntryKind,
  HealthCheck,
  HealthStatus,
  Node,
  NodeService,
} from './types';

/** A read result plus the index a blocking query on it compares against (≥ 1). */
export interface Indexed<T> {
  index: number;
  value: T;
  /**
   * The blocking-query indexes `index` is taken from (src/catalog/watch-keys.ts):
   * the read's index moves only when an entry moves one of them. A blocking
   * query waits for those alone (Catalog.waitForChange). Absent: any entry may
   * move it, so the query wakes on every entry.
   */
  watch?: readonly string[];
}

export interface ServiceName {
  Name: string;
  Namespace: string;
  Partition: string;
}

/** Synchronous, consistent reads of the current state (as of lastIndex()). */
export interface CatalogReader extends KvReader {
  /** Index of the last applied entry (0n before anything). */
  lastIndex(): bigint;
  nodes(): Indexed<Node[]>; // sorted by Node
  node(name: string): Indexed<{ Node: Node; Services: NodeService[] } | undefined>;
  nodeChecks(node: string): Indexed<HealthCheck[]>;
  /** Service name → union of its instances' tags (Consul's /v1/catalog/services). */
  services(): Indexed<Record<string, string[]>>;
  /** Instances of a service with node and checks, sorted by Node then Service.ID. Name match is exact. */
  serviceInstances(service: string): Indexed<CheckServiceNode[]>;
  serviceChecks(service: string): Indexed<HealthCheck[]>;
  checksInState(state: HealthStatus | 'any'): Indexed<HealthCheck[]>;
  configEntries(kind: ConfigEntryKind): Indexed<ConfigEntry[]>; // sorted by Name
  configEntry(kind: ConfigEntryKind, name: string): Indexed<ConfigEntry | undefined>;
  serviceNames(): Indexed<ServiceName[]>; // sorted by Name
  /** Every check with a TTL (Definition.TTL), for the TTL expiry scheduler. */
  ttlChecks(): HealthCheck[];
  /** Every check with a TTL and the index of its last registration or refresh, by node then CheckID. */
  ttlCheckStates(): TtlCheckState[];
  /** One check with its refresh index (any check, TTL or not); undefined when it does not exist. */
  ttlCheck(node: string, checkId: string): TtlCheckState | undefined;
  /** Tokens and policies as of lastIndex() (immutable; a new object after each ACL write). */
  acl(): AclTables;
  /** The built-in CA: configuration, roots (private keys included) and leaves. Frozen; replaced on every CA entry. */
  connectCa(): ConnectState;
}

/**
 * A check and the index of the entry that last registered or refreshed it (TTL
 * pass/warn/fail/update). The refresh index is not part of the Consul-visible
 * HealthCheck and moves without events; `check-ttl-expire` names it.
 */
export interface TtlCheckState {
  check: HealthCheck;
  refreshIndex: number;
  /** True once a check-ttl-expire applied for this refresh index (the check waits for its next refresh). */
  expired: boolean;
}

export interface CheckRef {
  node: string;
  checkId: string;
}

/** Extra facts about one applied entry, beyond its events. */
export interface AppliedInfo {
  /** Checks with a TTL (before or after the entry) whose row the entry touched: registered, refreshed, changed or removed. */
  ttlTouched: readonly CheckRef[];
  /** AccessorIDs of tokens whose rights this entry may have changed (ACL writes, restores: every token); absent when none. */
  aclAffected?: readonly string[] | 'all';
  /** Set when the entry changed the CA: whether the roots changed, and whose leaves. */
  connect?: ConnectChange;
  /** Sessions the entry created, renewed or ended ('all' after a restore); absent when none. */
  sessionsTouched?: readonly string[] | 'all';
}

/** `info` was added after the first version of this contract; two-argument listeners stay valid. */
export type CatalogListener = (index: bigint, events: readonly CatalogEvent[], info: AppliedInfo) => void;

export interface Catalog extends CatalogReader {
  /** Appends the command, waits until it is durable and applied here, returns the outcome. */
  submit(command: Command): Promise<ApplyResult>;
  /** Resolves when lastIndex() > after, or rejects with the signal's reason. */
  waitForIndex(after: bigint, signal?: AbortSignal): Promise<void>;
  /**
   * Resolves once an applied entry moves one of `watch` (an Indexed.watch), or
   * the whole state is replaced; rejects with the signal's reason. Entries that
   * move none of them do not wake it. Without `watch`: the next applied entry.
   */
  waitForChange(watch: readonly string[] | undefined, signal?: AbortSignal): Promise<void>;
  /**
   * Called synchronously after each entry is applied, with that entry's events
   * (possibly none). Listeners see entries in log order. Returns an unsubscribe function.
   */
  onApplied(listener: CatalogListener): () => void;
  /** Called after the whole state was replaced (restore); subscribers must reset. */
  onReset(listener: (index: bigint) => void): () => void;
  /** Serialises the whole state (for snapshots and compaction). */
  snapshot(): { index: bigint; state: string };
  /** A private copy of the state at lastIndex() to try commands on (the dry run); see StateMachine.fork. */
  fork(): StateMachine;
  close(): Promise<void>;
}
