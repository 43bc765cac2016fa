// The state machine's tables and the staged draft every command is applied to.
// A command writes into a Draft (copy-on-write per node record and per config
// entry); commit publishes the draft, a refusal just drops it. Atomicity for
// register and txn therefore needs no undo log.
import { type AclChange, type AclTables, emptyAclTables } from '../acl/state';
import { emptyConnectState } from '../connect/state';
import type { ConnectChange, ConnectState } from '../connect/types';
import { emptyKvTables, KvDraft, type KvTables } from './kv-tables';
import type { ConfigEntry, HealthCheck, Node, NodeService } from './types';
import { deepFreeze } from './values';

/** A check plus the hidden index of its last registration or TTL refresh (not Consul-visible). */
export interface CheckRow {
  readonly check: HealthCheck;
  readonly refreshIndex: number;
  /** Set by a TTL expiry for this refreshIndex, so a duplicate expiry (another hub's timer) is a no-op. */
  readonly expired?: boolean;
}

/** One node with everything registered on it. Maps are never mutated once committed. */
export interface NodeRecord {
  readonly node: Node;
  readonly services: ReadonlyMap<string, NodeService>;
  readonly checks: ReadonlyMap<string, CheckRow>;
}

interface WritableRecord {
  node: Node;
  services: Map<string, NodeService>;
  checks: Map<string, CheckRow>;
}

/** Blocking-query indexes (numbers, as Consul's X-Consul-Index). Per-key entries outlive deletions. */
export interface Indexes {
  nodes: number;
  services: number;
  checks: number;
  configs: number;
  /** Any KV write; kvDeletes: the last KV deletion (a prefix read's index never falls below it). */
  kv: number;
  kvDeletes: number;
  sessions: number;
  node: Map<string, number>;
  service: Map<string, number>;
  configKind: Map<string, number>;
  configEntry: Map<string, number>; // key2(kind, name)
}

export interface Tables {
  nodes: Map<string, NodeRecord>;
  configs: Map<string, ConfigEntry>; // key2(kind, name)
  /** Service name → key2(node, serviceId) of each instance. */
  byServiceName: Map<string, Set<string>>;
  indexes: Indexes;
  /** Tokens and policies (src/acl/state.ts), replaced as a whole by each ACL write. */
  acl: AclTables;
  /** The built-in CA (src/connect/state.ts), replaced as a whole by each CA entry. */
  connect: ConnectState;
  /** KV entries, sessions and lock delays (kv-tables.ts). */
  kvs: KvTables;
}

export function emptyTables(): Tables {
  return {
    acl: emptyAclTables(),
    nodes: new Map(),
    configs: new Map(),
    byServiceName: new Map(),
    connect: emptyConnectState(),
    kvs: emptyKvTables(),
    indexes: {
      nodes: 0,
      services: 0,
      checks: 0,
      configs: 0,
      kv: 0,
      kvDeletes: 0,
      sessions: 0,
      node: new Map(),
      service: new Map(),
      configKind: new Map(),
      configEntry: new Map(),
    },
  };
}

export interface NodeChange {
  name: string;
  before: NodeRecord | undefined;
  after: NodeRecord | undefined;
}

export interface ConfigChange {
  key: string;
  before: ConfigEntry | undefined;
  after: ConfigEntry | undefined;
}

/** Staged writes over committed tables; reads see the staged state. */
export class Draft {
  private readonly nodeStage = new Map<string, WritableRecord | null>();
  private readonly configStage = new Map<string, ConfigEntry | null>();
  private aclStage: { next: AclTables; change: AclChange } | undefined;
  private connectStage: { next: ConnectState; change: ConnectChange } | undefined;
  /** Staged KV entries, sessions and lock delays. */
  readonly kv: KvDraft;

  constructor(
    private readonly base: Tables,
    /** The index of the entry being applied (CreateIndex/ModifyIndex of what it writes). */
    readonly index: number,
    /**
     * A dry run (StateMachine.check): the draft is dropped, never committed, so
     * what it writes need not be frozen for sharing (freezing is a deep walk).
     */
    readonly dry = false,
    /**
     * The command is the entry's own JSON.parse, held by nobody else (StateMachine.apply
     * with `owned`): what it carries may be stored as is instead of as a copy.
     */
    readonly owned = false,
  ) {
    this.kv = new KvDraft(base.kvs);
  }

  /** The tables' clock: the latest command time applied (kv-tables.ts). */
  clock(): number {
    return this.base.kvs.clock;
  }

  /** Deep-freezes what a committed draft will share with readers; a dry run's objects are dropped. */
  seal<T>(value: T): T {
    return this.dry ? value : deepFreeze(value);
  }

  record(name: string): NodeRecord | undefined {
    const staged = this.nodeStage.get(name);
    if (staged !== undefined) return staged ?? undefined;
    return this.base.nodes.get(name);
  }

  /** A writable copy of the node's record, staged on first use. Undefined when the node does not exist. */
  writable(name: string): WritableRecord | undefined {
    const staged = this.nodeStage.get(name);
    if (staged !== undefined) return staged ?? undefined;
    const committed = this.base.nodes.get(name);
    if (committed === undefined) return undefined;
    const copy: WritableRecord = {
      node: committed.node,
      services: new Map(committed.services),
      checks: new Map(committed.checks),
    };
    this.nodeStage.set(name, copy);
    return copy;
  }

  putNode(node: Node): void {
    const rec = this.writable(node.Node);
    if (rec) rec.node = node;
    else this.nodeStage.set(node.Node, { node, services: new Map(), checks: new Map() });
  }

  deleteNode(name: string): void {
    if (this.record(name) !== undefined) this.nodeStage.set(name, null);
  }

  config(key: string): ConfigEntry | undefined {
    const staged = this.configStage.get(key);
    if (staged !== undefined) return staged ?? undefined;
    return this.base.configs.get(key);
  }

  /** The names of every entry of `kind`, staged changes applied (a scan: for the rare checks that need one). */
  configNames(kind: string): string[] {
    const prefix = `${kind}\u0000`;
    const names = new Set<string>();
    for (const key of [...this.base.configs.keys(), ...this.configStage.keys()])
      if (key.startsWith(prefix) && this.config(key) !== undefined) names.add(key.slice(prefix.length));
    return [...names];
  }

  putConfig(key: string, entry: ConfigEntry): void {
    this.configStage.set(key, entry);
  }

  deleteConfig(key: string): void {
    if (this.config(key) !== undefined) this.configStage.set(key, null);
  }

  acl(): AclTables {
    return this.aclStage?.next ?? this.base.acl;
  }

  putAcl(next: AclTables, change: AclChange): void {
    if (next === this.acl()) return;
    this.aclStage = { next, change: { affected: [...(this.aclStage?.change.affected ?? []), ...change.affected] } };
  }

  /** The staged ACL tables and what they change, when an ACL write changed anything. */
  aclChange(): { next: AclTables; change: AclChange } | undefined {
    return this.aclStage;
  }

  connect(): ConnectState {
    return this.connectStage?.next ?? this.base.connect;
  }

  putConnect(next: ConnectState, change: ConnectChange): void {
    this.connectStage = { next, change };
  }

  /** The staged CA state and what it changes, when a CA entry changed anything. */
  connectChange(): { next: ConnectState; change: ConnectChange } | undefined {
    return this.connectStage;
  }

  /** What the draft changed, by node and by config entry, in key order. Identity-equal means unchanged. */
  nodeChanges(): NodeChange[] {
    const out: NodeChange[] = [];
    for (const name of [...this.nodeStage.keys()].sort()) {
      const after = this.nodeStage.get(name) ?? undefined;
      out.push({ name, before: this.base.nodes.get(name), after });
    }
    return out;
  }

  configChanges(): ConfigChange[] {
    const out: ConfigChange[] = [];
    for (const key of [...this.configStage.keys()].sort()) {
      const after = this.configStage.get(key) ?? undefined;
      const before = this.base.configs.get(key);
      if (before !== after) out.push({ key, before, after });
    }
    return out;
  }
}
