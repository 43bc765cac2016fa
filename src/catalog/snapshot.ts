// The whole state as one JSON string: sorted everywhere, so equal states give
// equal strings (replicas can compare snapshots byte for byte). Blocking-query
// indexes travel too, including those of deleted objects, so reads after a
// restore answer exactly as before it.
import { parseAcl, serialiseAcl } from '../acl/state';
import { parseConnect, serialiseConnect } from '../connect/state';
import { HubError } from '../errors';
import { emptyKvTables, type KvTables } from './kv-tables';
import type { KvEntry, SessionRow } from './kv-types';
import { type CheckRow, emptyTables, type Indexes, type NodeRecord, type Tables } from './tables';
import type { ConfigEntry, HealthCheck, Node, NodeService } from './types';
import { byString, deepFreeze, key2 } from './values';

const VERSION = 1;

interface NodeDoc {
  node: Node;
  services: NodeService[];
  checks: { check: HealthCheck; refreshIndex: number; expired?: boolean }[];
}

interface IndexesDoc {
  nodes: number;
  services: number;
  checks: number;
  configs: number;
  node: [string, number][];
  service: [string, number][];
  configKind: [string, number][];
  configEntry: [string, number][];
  /** Absent in snapshots written before KV (read as 0). */
  kv?: number;
  kvDeletes?: number;
  sessions?: number;
}

/** KV entries, sessions, lock delays and the clock; absent in snapshots written before KV. */
interface KvDoc {
  entries: KvEntry[];
  sessions: SessionRow[];
  lockDelays: [string, number][];
  clock: number;
}

interface SnapshotDoc {
  v: number;
  index: string;
  nodes: NodeDoc[];
  configs: ConfigEntry[];
  indexes: IndexesDoc;
  /** Tokens and policies; absent in snapshots written before ACLs (read as the empty ACL state). */
  acl?: unknown;
  /** The built-in CA; absent in snapshots written before it (read as the empty CA state). */
  connect?: unknown;
  kv?: KvDoc;
}

function serialiseKv(t: KvTables): KvDoc {
  return {
    entries: sortedValues(t.kv),
    sessions: sortedValues(t.sessions).map((r) => ({ session: r.session, renewIndex: r.renewIndex })),
    lockDelays: sortedEntries(t.lockDelays),
    clock: t.clock,
  };
}

function parseKv(doc: KvDoc | undefined): KvTables {
  const t = emptyKvTables();
  if (!doc) return t;
  for (const e of doc.entries) t.kv.set(e.Key, deepFreeze(e));
  for (const r of doc.sessions) {
    t.sessions.set(r.session.ID, { session: deepFreeze(r.session), renewIndex: r.renewIndex });
  }
  t.lockDelays = new Map(doc.lockDelays);
  t.clock = doc.clock;
  return t;
}

function sortedValues<V>(map: ReadonlyMap<string, V>): V[] {
  return [...map.keys()].sort(byString).map((k) => map.get(k)!);
}

function sortedEntries<V>(map: ReadonlyMap<string, V>): [string, V][] {
  return [...map.keys()].sort(byString).map((k) => [k, map.get(k)!]);
}

export function serialise(tables: Tables, lastIndex: bigint): string {
  const doc: SnapshotDoc = {
    v: VERSION,
    index: lastIndex.toString(),
    nodes: sortedValues(tables.nodes).map((rec) => ({
      node: rec.node,
      services: sortedValues(rec.services),
      checks: sortedValues(rec.checks).map((row) =>
        row.expired
          ? { check: row.check, refreshIndex: row.refreshIndex, expired: true }
          : { check: row.check, refreshIndex: row.refreshIndex },
      ),
    })),
    configs: sortedValues(tables.configs),
    indexes: {
      nodes: tables.indexes.nodes,
      services: tables.indexes.services,
      checks: tables.indexes.checks,
      configs: tables.indexes.configs,
      node: sortedEntries(tables.indexes.node),
      service: sortedEntries(tables.indexes.service),
      configKind: sortedEntries(tables.indexes.configKind),
      configEntry: sortedEntries(tables.indexes.configEntry),
      kv: tables.indexes.kv,
      kvDeletes: tables.indexes.kvDeletes,
      sessions: tables.indexes.sessions,
    },
    acl: serialiseAcl(tables.acl),
    connect: serialiseConnect(tables.connect),
    kv: serialiseKv(tables.kvs),
  };
  return JSON.stringify(doc);
}

export function parse(state: string): { tables: Tables; index: bigint } {
  let doc: SnapshotDoc;
  try {
    doc = JSON.parse(state) as SnapshotDoc;
  } catch (err) {
    throw new HubError('INVALID_ARGUMENT', 'snapshot: not JSON', { field: 'state', cause: err });
  }
  if (doc?.v !== VERSION)
    throw new HubError('INVALID_ARGUMENT', `snapshot: unsupported version ${String(doc?.v)}`, { field: 'state' });
  const tables = emptyTables();
  for (const n of doc.nodes) {
    const services = new Map<string, NodeService>();
    for (const s of n.services) {
      services.set(s.ID, deepFreeze(s));
      const key = key2(n.node.Node, s.ID);
      const set = tables.byServiceName.get(s.Service) ?? new Set<string>();
      set.add(key);
      tables.byServiceName.set(s.Service, set);
    }
    const checks = new Map<string, CheckRow>();
    for (const c of n.checks) {
      const row: CheckRow = { check: deepFreeze(c.check), refreshIndex: c.refreshIndex };
      checks.set(c.check.CheckID, c.expired ? { ...row, expired: true } : row);
    }
    const rec: NodeRecord = { node: deepFreeze(n.node), services, checks };
    tables.nodes.set(n.node.Node, rec);
  }
  for (const e of doc.configs) tables.configs.set(key2(e.Kind, e.Name), deepFreeze(e));
  const ix: Indexes = tables.indexes;
  ix.nodes = doc.indexes.nodes;
  ix.services = doc.indexes.services;
  ix.checks = doc.indexes.checks;
  ix.configs = doc.indexes.configs;
  ix.node = new Map(doc.indexes.node);
  ix.service = new Map(doc.indexes.service);
  ix.configKind = new Map(doc.indexes.configKind);
  ix.configEntry = new Map(doc.indexes.configEntry);
  tables.acl = parseAcl(doc.acl);
  ix.kv = doc.indexes.kv ?? 0;
  ix.kvDeletes = doc.indexes.kvDeletes ?? 0;
  ix.sessions = doc.indexes.sessions ?? 0;
  tables.connect = parseConnect(doc.connect);
  tables.kvs = parseKv(doc.kv);
  return { tables, index: BigInt(doc.index) };
}
