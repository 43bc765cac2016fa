// CatalogReader over the committed tables. Every read returns the index a
// blocking query compares against: the most specific index that covers what
// was read, else its table's index; never below 1.
import type { CatalogReader, Indexed, ServiceName, TtlCheckState } from './catalog';
import { buildCsn } from './events';
import type { KvReader } from './kv-reads';
import type { NodeRecord, Tables } from './tables';
import type { CheckServiceNode, ConfigEntry, ConfigEntryKind, HealthCheck, HealthStatus, NodeService } from './types';
import { byString, key2 } from './values';
import { watchKeys } from './watch-keys';

const at = <T>(index: number, value: T, watch: readonly string[]): Indexed<T> => ({
  index: Math.max(1, index),
  value,
  watch,
});

// Reads of whole tables share one frozen key list each.
const NODES = Object.freeze([watchKeys.nodes]);
const SERVICES = Object.freeze([watchKeys.services]);
const CHECKS = Object.freeze([watchKeys.checks]);
const CONFIGS = Object.freeze([watchKeys.configs]);
const NODES_AND_CHECKS = Object.freeze([watchKeys.nodes, watchKeys.checks]);

function sortedKeys(map: ReadonlyMap<string, unknown>): string[] {
  return [...map.keys()].sort(byString);
}

function checksOf(rec: NodeRecord): HealthCheck[] {
  return sortedKeys(rec.checks).map((id) => rec.checks.get(id)!.check);
}

function hasTtl(check: HealthCheck): boolean {
  return typeof check.Definition?.TTL === 'string' && check.Definition.TTL !== '';
}

/** Every read but KV and sessions' (kv-reads.ts, joined in state.ts). */
export function createReader(tables: () => Tables, lastIndex: () => bigint): Omit<CatalogReader, keyof KvReader> {
  return {
    lastIndex,
    nodes: () => readNodes(tables()),
    node: (name) => readNode(tables(), name),
    nodeChecks: (name) => readNodeChecks(tables(), name),
    services: () => readServices(tables()),
    serviceInstances: (service) => readServiceInstances(tables(), service),
    serviceChecks: (service) => readServiceChecks(tables(), service),
    checksInState: (state: HealthStatus | 'any') =>
      at(
        tables().indexes.checks,
        allChecks(tables(), (c) => state === 'any' || c.Status === state),
        CHECKS,
      ),
    configEntries: (kind: ConfigEntryKind) => readConfigEntries(tables(), kind),
    configEntry: (kind: ConfigEntryKind, name: string) => readConfigEntry(tables(), kind, name),
    serviceNames: () => readServiceNames(tables()),
    ttlChecks: () => allChecks(tables(), hasTtl),
    ttlCheckStates: () => ttlStates(tables(), hasTtl),
    ttlCheck(node, checkId) {
      const row = tables().nodes.get(node)?.checks.get(checkId);
      return row ? { check: row.check, refreshIndex: row.refreshIndex, expired: row.expired === true } : undefined;
    },
    acl: () => tables().acl,
    connectCa: () => tables().connect,
  };
}

function allChecks(t: Tables, filter: (c: HealthCheck) => boolean): HealthCheck[] {
  const out: HealthCheck[] = [];
  for (const name of sortedKeys(t.nodes)) for (const c of checksOf(t.nodes.get(name)!)) if (filter(c)) out.push(c);
  return out;
}

function instances(t: Tables, service: string): { rec: NodeRecord; svc: NodeService }[] {
  const keys = [...(t.byServiceName.get(service) ?? [])].sort(byString);
  return keys.map((k) => {
    const [node, id] = k.split('\u0000') as [string, string];
    const rec = t.nodes.get(node)!;
    return { rec, svc: rec.services.get(id)! };
  });
}

/** A service's health index, and where it comes from: its own key, or the services table while it has no instance. */
function serviceIndexed<T>(t: Tables, service: string, value: T): Indexed<T> {
  const ix = t.indexes;
  const own = ix.service.get(service);
  return own === undefined ? at(ix.services, value, SERVICES) : at(own, value, [watchKeys.service(service)]);
}

/** A node's index: its own key while it exists, else the fallback table(s). */
function nodeIndexed<T>(
  t: Tables,
  name: string,
  value: T,
  fallback: number,
  fallbackKeys: readonly string[],
): Indexed<T> {
  const own = t.indexes.node.get(name);
  return own === undefined ? at(fallback, value, fallbackKeys) : at(own, value, [watchKeys.node(name)]);
}

function ttlStates(t: Tables, filter: (c: HealthCheck) => boolean): TtlCheckState[] {
  const out: TtlCheckState[] = [];
  for (const name of sortedKeys(t.nodes)) {
    const rec = t.nodes.get(name)!;
    for (const id of sortedKeys(rec.checks)) {
      const row = rec.checks.get(id)!;
      if (filter(row.check))
        out.push({ check: row.check, refreshIndex: row.refreshIndex, expired: row.expired === true });
    }
  }
  return out;
}

function readNodes(t: Tables) {
  return at(
    t.indexes.nodes,
    sortedKeys(t.nodes).map((n) => t.nodes.get(n)!.node),
    NODES,
  );
}

function readNode(t: Tables, name: string) {
  const rec = t.nodes.get(name);
  const value = rec && { Node: rec.node, Services: sortedKeys(rec.services).map((id) => rec.services.get(id)!) };
  return nodeIndexed(t, name, value, t.indexes.nodes, NODES);
}

function readNodeChecks(t: Tables, name: string) {
  const rec = t.nodes.get(name);
  // A deleted node moved the nodes table, not necessarily the checks table.
  return nodeIndexed(t, name, rec ? checksOf(rec) : [], Math.max(t.indexes.nodes, t.indexes.checks), NODES_AND_CHECKS);
}

function readServices(t: Tables) {
  const out: Record<string, string[]> = {};
  for (const name of sortedKeys(t.byServiceName)) {
    const tags = new Set<string>();
    for (const { svc } of instances(t, name)) for (const tag of svc.Tags ?? []) tags.add(tag);
    out[name] = [...tags].sort(byString);
  }
  return at(t.indexes.services, out, SERVICES);
}

function readServiceInstances(t: Tables, service: string) {
  const value: CheckServiceNode[] = instances(t, service).map(({ rec, svc }) => buildCsn(rec, svc));
  return serviceIndexed(t, service, value);
}

function readServiceChecks(t: Tables, service: string) {
  const value: HealthCheck[] = [];
  for (const { rec, svc } of instances(t, service)) {
    for (const c of checksOf(rec)) if (c.ServiceID === svc.ID) value.push(c);
  }
  return serviceIndexed(t, service, value);
}

function readConfigEntries(t: Tables, kind: ConfigEntryKind) {
  const value: ConfigEntry[] = [];
  for (const key of sortedKeys(t.configs)) {
    const e = t.configs.get(key)!;
    if (e.Kind === kind) value.push(e);
  }
  const own = t.indexes.configKind.get(kind);
  return own === undefined ? at(t.indexes.configs, value, CONFIGS) : at(own, value, [watchKeys.configKind(kind)]);
}

function readConfigEntry(t: Tables, kind: ConfigEntryKind, name: string) {
  const ix = t.indexes;
  const value = t.configs.get(key2(kind, name));
  const own = ix.configEntry.get(key2(kind, name));
  if (own !== undefined) return at(own, value, [watchKeys.configEntry(kind, name)]);
  const ofKind = ix.configKind.get(kind);
  return ofKind === undefined ? at(ix.configs, value, CONFIGS) : at(ofKind, value, [watchKeys.configKind(kind)]);
}

function readServiceNames(t: Tables) {
  const value: ServiceName[] = sortedKeys(t.byServiceName).map((Name) => ({
    Name,
    Namespace: 'default',
    Partition: 'default',
  }));
  return at(t.indexes.services, value, SERVICES);
}
