// Events from a committed change set, as Consul's state store derives them
// (catalog_events.go, config_entry_events.go): compare each node record before
// and after, decide which instances changed, emit in a fixed order
// (node name, then service ID; ServiceHealth before its Connect copy).
import type { ConfigChange, NodeChange, NodeRecord } from './tables';
import { terminatingLinks } from './terminating-links';
import {
  type CatalogEvent,
  type CheckServiceNode,
  CONFIG_TOPIC_BY_KIND,
  type ConfigEntry,
  type HealthCheck,
  type Node,
  type NodeService,
  SUBJECT_NONE,
  Topic,
} from './types';
import { byString, deepFreeze } from './values';

/** The full instance: node, service, node-level checks then the service's checks, each by CheckID. */
export function buildCsn(rec: NodeRecord, service: NodeService): CheckServiceNode {
  const checks: HealthCheck[] = [];
  for (const id of [...rec.checks.keys()].sort(byString)) {
    const check = rec.checks.get(id)!.check;
    if (check.ServiceID === '' || check.ServiceID === service.ID) checks.push(check);
  }
  return deepFreeze({ Node: rec.node, Service: service, Checks: checks });
}

/** Consul's deregistration CSN carries only the node's name (and partition). */
function deregisterCsn(node: Node, service: NodeService): CheckServiceNode {
  const stub: Node = {
    ID: '',
    Node: node.Node,
    Address: '',
    Datacenter: '',
    TaggedAddresses: {},
    Meta: {},
    ...(node.Partition !== undefined ? { Partition: node.Partition } : {}),
    CreateIndex: 0,
    ModifyIndex: 0,
  };
  return deepFreeze({ Node: stub, Service: service, Checks: [] });
}

/** Subject of the ServiceHealthConnect copy, or undefined when the service is not on the Connect topic. */
export function connectSubject(service: NodeService): string | undefined {
  if (service.Kind === 'connect-proxy') {
    const dest = service.Proxy?.DestinationServiceName;
    return typeof dest === 'string' && dest !== '' ? dest.toLowerCase() : undefined;
  }
  if (service.Connect?.Native === true) return service.Service.toLowerCase();
  return undefined;
}

/**
 * The services a terminating gateway's entry links by name, lower-cased: the Connect subjects its
 * instances are published under, as Consul lists a terminating gateway among a linked service's
 * Connect instances. A `*` link is not followed here (docs/gateways.md).
 */
export function linkedSubjects(entry: ConfigEntry | undefined): string[] {
  return [...new Set(terminatingLinks(entry).named.map((n) => n.toLowerCase()))];
}

/** A terminating gateway's entry by the gateway's name. */
export type TerminatingEntryOf = (gateway: string) => ConfigEntry | undefined;

/** Every subject of a service's Connect copies: a proxy's or native service's one, a terminating gateway's linked services. */
export function connectSubjects(service: NodeService, entryOf: TerminatingEntryOf): string[] {
  if (service.Kind === 'terminating-gateway') return linkedSubjects(entryOf(service.Service));
  const one = connectSubject(service);
  return one === undefined ? [] : [one];
}

export interface HealthChanges {
  events: CatalogEvent[];
  /** Service names whose health view changed (for per-service blocking indexes). */
  serviceNames: Set<string>;
}

export function healthEvents(
  changes: readonly NodeChange[],
  index: bigint,
  entryOf: TerminatingEntryOf,
): HealthChanges {
  // Module-level helpers, not closures: this runs for every applied entry on every hub.
  const out: HealthChanges = { events: [], serviceNames: new Set<string>() };
  for (const { before, after } of changes) {
    if (!after) {
      if (before)
        for (const id of [...before.services.keys()].sort(byString))
          deregister(out, index, before.node, before.services.get(id)!, entryOf);
      continue;
    }
    const { nodeLevel, serviceIds } = changedChecks(before, after);
    const nodeChanged = before?.node !== after.node || nodeLevel;
    const ids = before
      ? [...new Set([...before.services.keys(), ...after.services.keys()])]
      : [...after.services.keys()];
    for (const id of ids.sort(byString)) {
      const b = before?.services.get(id);
      const a = after.services.get(id);
      if (!a) {
        if (b) deregister(out, index, before!.node, b, entryOf);
        continue;
      }
      if (b && b.Service !== a.Service) {
        // A rename leaves the old name's views: deregister there, register under the new name.
        deregister(out, index, before!.node, b, entryOf);
        register(out, index, after, a, entryOf);
        continue;
      }
      if (!nodeChanged && b === a && !serviceIds?.has(id)) continue;
      const now = connectSubjects(a, entryOf);
      for (const old of b ? connectSubjects(b, entryOf) : []) {
        if (now.includes(old)) continue;
        // The proxy's destination moved (or it left Connect): the old Connect view loses it.
        out.events.push({
          topic: Topic.ServiceHealthConnect,
          subject: old,
          index,
          payload: { type: 'service-health', op: 'deregister', csn: deregisterCsn(before!.node, b!) },
        });
      }
      emit(out, index, 'register', buildCsn(after, a), now);
    }
  }
  return out;
}

function emit(
  out: HealthChanges,
  index: bigint,
  op: 'register' | 'deregister',
  csn: CheckServiceNode,
  connect: readonly string[],
): void {
  out.serviceNames.add(csn.Service.Service);
  const payload = { type: 'service-health', op, csn } as const;
  out.events.push({ topic: Topic.ServiceHealth, subject: csn.Service.Service.toLowerCase(), index, payload });
  for (const subject of connect) out.events.push({ topic: Topic.ServiceHealthConnect, subject, index, payload });
}

function deregister(
  out: HealthChanges,
  index: bigint,
  node: Node,
  service: NodeService,
  entryOf: TerminatingEntryOf,
): void {
  emit(out, index, 'deregister', deregisterCsn(node, service), connectSubjects(service, entryOf));
}

function register(
  out: HealthChanges,
  index: bigint,
  rec: NodeRecord,
  service: NodeService,
  entryOf: TerminatingEntryOf,
): void {
  emit(out, index, 'register', buildCsn(rec, service), connectSubjects(service, entryOf));
}

/**
 * A terminating-gateway entry that links other services moves its gateway's instances between
 * Connect views: out of the services it no longer links, into those it now links.
 */
export function terminatingLinkEvents(
  change: { before: ConfigEntry | undefined; after: ConfigEntry | undefined },
  instances: readonly { rec: NodeRecord; service: NodeService }[],
  index: bigint,
): CatalogEvent[] {
  const before = linkedSubjects(change.before);
  const after = linkedSubjects(change.after);
  const gone = before.filter((s) => !after.includes(s));
  const added = after.filter((s) => !before.includes(s));
  const events: CatalogEvent[] = [];
  for (const { rec, service } of instances) {
    if (service.Kind !== 'terminating-gateway') continue;
    for (const subject of gone) {
      const csn = deregisterCsn(rec.node, service);
      events.push({
        topic: Topic.ServiceHealthConnect,
        subject,
        index,
        payload: { type: 'service-health', op: 'deregister', csn },
      });
    }
    for (const subject of added) {
      const csn = buildCsn(rec, service);
      events.push({
        topic: Topic.ServiceHealthConnect,
        subject,
        index,
        payload: { type: 'service-health', op: 'register', csn },
      });
    }
  }
  return events;
}

interface CheckChanges {
  nodeLevel: boolean;
  /** Service IDs with a changed check; undefined: none. */
  serviceIds: Set<string> | undefined;
}

function note(out: CheckChanges, check: HealthCheck): void {
  if (check.ServiceID === '') out.nodeLevel = true;
  else (out.serviceIds ??= new Set()).add(check.ServiceID);
}

/** Which checks changed visibly (refresh-only changes are invisible): node-level ones, and per service ID. */
function changedChecks(before: NodeRecord | undefined, after: NodeRecord): CheckChanges {
  const out: CheckChanges = { nodeLevel: false, serviceIds: undefined };
  for (const [id, row] of after.checks) {
    const old = before?.checks.get(id)?.check;
    if (old === row.check) continue;
    note(out, row.check);
    if (old) note(out, old);
  }
  if (before) for (const [id, row] of before.checks) if (!after.checks.has(id)) note(out, row.check);
  return out;
}

/**
 * The subject a config entry's events are published under, and the key views
 * keep it by: `<partition>/<namespace>/<name>`, an empty or missing part
 * spelled `default` (Consul's EnterpriseMeta defaulting). The one place it is
 * formatted.
 */
export function configSubject(entry: {
  Name: string;
  Namespace?: string | undefined;
  Partition?: string | undefined;
}): string {
  return `${entry.Partition || 'default'}/${entry.Namespace || 'default'}/${entry.Name}`;
}

export function configEvents(changes: readonly ConfigChange[], index: bigint): CatalogEvent[] {
  const events: CatalogEvent[] = [];
  for (const { before, after } of changes) {
    const entry = (after ?? before)!;
    const topic = CONFIG_TOPIC_BY_KIND[entry.Kind];
    if (topic === undefined) continue;
    events.push({
      topic,
      subject: configSubject(entry),
      index,
      payload: { type: 'config-entry', op: after ? 'upsert' : 'delete', entry },
    });
  }
  return events;
}

export function serviceListEvent(name: string, op: 'register' | 'deregister', index: bigint): CatalogEvent {
  return {
    topic: Topic.ServiceList,
    subject: SUBJECT_NONE,
    index,
    payload: { type: 'service-list', op, name, namespace: 'default', partition: 'default' },
  };
}
