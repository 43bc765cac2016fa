// Publishes a draft into the tables: node records, the service-name index,
// blocking-query indexes, and the entry's events (health, service list, config).
// Per-key indexes of deleted keys are dropped (no tombstones to grow with churn):
// a read of a deleted key falls back to a table index that the deletion itself
// moved, so indexes never go back and a deletion is always seen.
import type { ConnectChange } from '../connect/types';
import type { CheckRef } from './catalog';
import { configEvents, healthEvents, serviceListEvent, terminatingLinkEvents } from './events';
import { commitKv, hasKvChanges } from './kv-commit';
import type { ConfigChange, Draft, Indexes, NodeChange, NodeRecord, Tables } from './tables';
import type { CatalogEvent, HealthCheck } from './types';
import { byString, key2 } from './values';
import { watchKeys } from './watch-keys';

interface NodeDiff {
  nodeChanged: boolean;
  servicesChanged: boolean;
  checksChanged: boolean;
  /** Any row changed, including refresh-only changes. */
  rowsChanged: boolean;
}

/**
 * Stands in for the rows of a node that is not there (before a registration, after a
 * deletion); never written. Shared: a Map per missing side was made for every entry.
 */
const NO_ROWS: ReadonlyMap<string, never> = new Map<string, never>();

function diff(before: NodeRecord | undefined, after: NodeRecord | undefined): NodeDiff {
  const d: NodeDiff = {
    nodeChanged: before?.node !== after?.node,
    servicesChanged: false,
    checksChanged: false,
    rowsChanged: false,
  };
  const bs = before?.services ?? NO_ROWS;
  const as = after?.services ?? NO_ROWS;
  for (const [id, s] of as) if (bs.get(id) !== s) d.servicesChanged = true;
  for (const id of bs.keys()) if (!as.has(id)) d.servicesChanged = true;
  const bc = before?.checks ?? NO_ROWS;
  const ac = after?.checks ?? NO_ROWS;
  for (const [id, row] of ac) {
    const old = bc.get(id);
    if (old !== row) d.rowsChanged = true;
    if (old?.check !== row.check) d.checksChanged = true;
  }
  for (const id of bc.keys()) {
    if (!ac.has(id)) d.checksChanged = d.rowsChanged = true;
  }
  return d;
}

const hasTtl = (check: HealthCheck | undefined) =>
  typeof check?.Definition?.TTL === 'string' && check.Definition.TTL !== '';

function touchedTtl(change: NodeChange, out: CheckRef[]): void {
  const bc = change.before?.checks ?? NO_ROWS;
  const ac = change.after?.checks ?? NO_ROWS;
  // Most nodes carry no check: nothing to sort or collect (every applied entry passes here).
  if (bc.size === 0 && ac.size === 0) return;
  const ids = new Set<string>([...bc.keys(), ...ac.keys()]);
  for (const checkId of [...ids].sort(byString)) {
    const b = bc.get(checkId);
    const a = ac.get(checkId);
    if (b !== a && (hasTtl(b?.check) || hasTtl(a?.check))) out.push({ node: change.name, checkId });
  }
}

/** True when publishing the draft would change anything: an object, a check row (a TTL refresh counts) or a config entry. */
export function hasChanges(draft: Draft): boolean {
  for (const change of draft.nodeChanges()) {
    const d = diff(change.before, change.after);
    if (d.nodeChanged || d.servicesChanged || d.rowsChanged) return true;
  }
  if (hasKvChanges(draft)) return true;
  return draft.configChanges().length > 0 || draft.aclChange() !== undefined || draft.connectChange() !== undefined;
}

export interface Committed {
  events: CatalogEvent[];
  ttlTouched: CheckRef[];
  /** The blocking-query indexes this entry moved (watch-keys.ts), duplicates possible. */
  moved: string[];
  /** Tokens whose rights the entry may have changed (see AppliedInfo.aclAffected). */
  aclAffected?: string[];
  /** What a CA entry changed (see AppliedInfo.connect). */
  connect?: ConnectChange;
  /** Sessions created, renewed or ended (see AppliedInfo.sessionsTouched). */
  sessionsTouched: string[];
}

export function commit(tables: Tables, draft: Draft, index: bigint): Committed {
  const ix = tables.indexes;
  const i = Number(index);
  const ttlTouched: CheckRef[] = [];
  const moved: string[] = [];
  const changes = moveNodeIndexes(ix, draft, i, ttlTouched, moved);

  // A terminating gateway's Connect copies follow its entry as the entry stands after this change.
  const health = healthEvents(changes, index, (gateway) => draft.config(key2('terminating-gateway', gateway)));
  for (const name of health.serviceNames) {
    ix.service.set(name, i);
    moved.push(watchKeys.service(name));
  }

  const countsBefore = publishNodes(tables, changes, moved);
  const listEvents = serviceListEvents(tables, countsBefore, index, moved);

  const configChanges = draft.configChanges();
  publishConfigs(tables, configChanges, i, moved);

  const acl = draft.aclChange();
  if (acl) tables.acl = acl.next;
  // The CA has no Subscribe topic (its entries carry private keys): listeners learn of it through AppliedInfo.
  const ca = draft.connectChange();
  if (ca) tables.connect = ca.next;
  const events = [
    ...health.events,
    ...listEvents,
    ...configEvents(configChanges, index),
    ...linkMoves(tables, configChanges, index),
  ];
  const out: Committed = { events, ttlTouched, moved, sessionsTouched: commitKv(tables, draft, moved) };
  if (acl) out.aclAffected = acl.change.affected;
  if (ca) out.connect = ca.change;
  return out;
}

/** The Connect copies a changed terminating-gateway entry moves (events.ts terminatingLinkEvents). */
function linkMoves(tables: Tables, configChanges: readonly ConfigChange[], index: bigint): CatalogEvent[] {
  const out: CatalogEvent[] = [];
  for (const change of configChanges) {
    const entry = change.after ?? change.before!;
    if (entry.Kind !== 'terminating-gateway') continue;
    const instances = [...(tables.byServiceName.get(entry.Name) ?? [])].sort(byString).map((k) => {
      const [node, id] = k.split('\u0000') as [string, string];
      const rec = tables.nodes.get(node)!;
      return { rec, service: rec.services.get(id)! };
    });
    out.push(...terminatingLinkEvents(change, instances, index));
  }
  return out;
}

/** The draft's node changes that change anything, with the table and node indexes they move. */
function moveNodeIndexes(ix: Indexes, draft: Draft, i: number, ttlTouched: CheckRef[], moved: string[]): NodeChange[] {
  const changes: NodeChange[] = [];
  for (const change of draft.nodeChanges()) {
    const d = diff(change.before, change.after);
    if (!d.nodeChanged && !d.servicesChanged && !d.rowsChanged) continue;
    changes.push(change);
    touchedTtl(change, ttlTouched);
    if (d.nodeChanged) {
      ix.nodes = i;
      moved.push(watchKeys.nodes);
    }
    if (d.servicesChanged) {
      ix.services = i;
      moved.push(watchKeys.services);
    }
    if (d.checksChanged) {
      ix.checks = i;
      moved.push(watchKeys.checks);
    }
    if (d.nodeChanged || d.servicesChanged || d.checksChanged) {
      ix.node.set(change.name, i);
      moved.push(watchKeys.node(change.name));
    }
  }
  return changes;
}

/**
 * Writes the node records and the service-name index; returns the service names whose
 * instance count may cross zero, with their count before this entry.
 */
function publishNodes(tables: Tables, changes: readonly NodeChange[], moved: string[]): Map<string, number> {
  const ix = tables.indexes;
  const countsBefore = new Map<string, number>();
  for (const { name, before, after } of changes) {
    for (const s of before?.services.values() ?? []) {
      if (after?.services.get(s.ID) === s) continue;
      if (!countsBefore.has(s.Service)) countsBefore.set(s.Service, tables.byServiceName.get(s.Service)?.size ?? 0);
      tables.byServiceName.get(s.Service)?.delete(key2(name, s.ID));
    }
  }
  for (const { name, before, after } of changes) {
    for (const s of after?.services.values() ?? []) {
      if (before?.services.get(s.ID) === s) continue;
      if (!countsBefore.has(s.Service)) countsBefore.set(s.Service, tables.byServiceName.get(s.Service)?.size ?? 0);
      let set = tables.byServiceName.get(s.Service);
      if (!set) tables.byServiceName.set(s.Service, (set = new Set()));
      set.add(key2(name, s.ID));
    }
    if (after) tables.nodes.set(name, after);
    else {
      tables.nodes.delete(name);
      ix.node.delete(name);
      moved.push(watchKeys.node(name));
    }
  }
  return countsBefore;
}

/** Service-list events for names whose count crossed zero; a name left with none is dropped. */
function serviceListEvents(
  tables: Tables,
  countsBefore: ReadonlyMap<string, number>,
  index: bigint,
  moved: string[],
): CatalogEvent[] {
  const ix = tables.indexes;
  const listEvents: CatalogEvent[] = [];
  for (const name of [...countsBefore.keys()].sort(byString)) {
    const was = countsBefore.get(name)!;
    const now = tables.byServiceName.get(name)?.size ?? 0;
    if (now === 0) {
      tables.byServiceName.delete(name);
      ix.service.delete(name);
      moved.push(watchKeys.service(name));
    }
    if (was === 0 && now > 0) listEvents.push(serviceListEvent(name, 'register', index));
    if (was > 0 && now === 0) listEvents.push(serviceListEvent(name, 'deregister', index));
  }
  return listEvents;
}

function publishConfigs(tables: Tables, configChanges: readonly ConfigChange[], i: number, moved: string[]): void {
  const ix = tables.indexes;
  for (const { key, before, after } of configChanges) {
    const entry = (after ?? before)!;
    if (after) tables.configs.set(key, after);
    else tables.configs.delete(key);
    ix.configs = i;
    ix.configKind.set(entry.Kind, i);
    if (after) ix.configEntry.set(key, i);
    else ix.configEntry.delete(key);
    moved.push(watchKeys.configs, watchKeys.configKind(entry.Kind), watchKeys.configEntry(entry.Kind, entry.Name));
  }
}
