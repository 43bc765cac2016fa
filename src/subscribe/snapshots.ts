// Snapshot builders, one per kind of topic: the current state of a subject as
// the stream items a new subscriber receives before EndOfSnapshot. Shapes follow
// Consul: health sends one item (one Event) per instance so no message grows
// with the service; config entries and the service list send one item, which
// becomes one EventBatch when it holds more than one event.
import type { CatalogReader } from '../catalog/catalog';
import { configSubject, connectSubjects } from '../catalog/events';
import { type CatalogEvent, type CheckServiceNode, SUBJECT_NONE, SUBJECT_WILDCARD, Topic } from '../catalog/types';
import { configKindOf } from './subjects';
import type { StreamItem } from './types';

export interface Snapshot {
  index: bigint;
  items: StreamItem[];
  end: StreamItem;
}

/** Builds the snapshot of `subject` on `topic` from the reader's current state. */
export function buildSnapshot(reader: CatalogReader, topic: Topic, subject: string): Snapshot {
  // Consul never hands out index 0: materializers read 0 as "no data yet".
  const last = reader.lastIndex();
  const index = last > 0n ? last : 1n;
  const items: StreamItem[] = [];
  if (topic === Topic.ServiceHealth || topic === Topic.ServiceHealthConnect) {
    for (const csn of healthInstances(reader, topic, subject)) {
      const event: CatalogEvent = { topic, subject, index, payload: { type: 'service-health', op: 'register', csn } };
      items.push({ kind: 'events', index, events: [event] });
    }
  } else if (topic === Topic.ServiceList) {
    const events: CatalogEvent[] = reader.serviceNames().value.map((s) => ({
      topic,
      subject: SUBJECT_NONE,
      index,
      payload: { type: 'service-list', op: 'register', name: s.Name, namespace: s.Namespace, partition: s.Partition },
    }));
    if (events.length > 0) items.push({ kind: 'events', index, events });
  } else {
    const events = configEvents(reader, topic, subject, index);
    if (events.length > 0) items.push({ kind: 'events', index, events });
  }
  return { index, items, end: { kind: 'end-of-snapshot', index } };
}

function configEvents(reader: CatalogReader, topic: Topic, subject: string, index: bigint): CatalogEvent[] {
  const kind = configKindOf(topic);
  if (kind === undefined) return [];
  const entries = reader.configEntries(kind).value;
  const out: CatalogEvent[] = [];
  for (const entry of entries) {
    const entrySubject = configSubject(entry);
    if (subject !== SUBJECT_WILDCARD && entrySubject !== subject) continue;
    out.push({ topic, subject: entrySubject, index, payload: { type: 'config-entry', op: 'upsert', entry } });
  }
  return out;
}

/**
 * Instances whose events carry this subject. Subjects are lower-cased while the
 * reader matches names exactly, so every spelling of the name is gathered. On
 * the Connect topic an instance belongs to the subjects the catalog publishes
 * its Connect events under (native service, a proxy's destination, the services
 * a terminating gateway links).
 */
function healthInstances(reader: CatalogReader, topic: Topic, subject: string): CheckServiceNode[] {
  const names = new Set(reader.serviceNames().value.map((s) => s.Name));
  const out: CheckServiceNode[] = [];
  const entryOf = (gateway: string) => reader.configEntry('terminating-gateway', gateway).value;
  for (const name of names) {
    const sameName = name.toLowerCase() === subject;
    if (topic === Topic.ServiceHealth && !sameName) continue;
    for (const csn of reader.serviceInstances(name).value) {
      if (topic === Topic.ServiceHealth || connectSubjects(csn.Service, entryOf).includes(subject)) out.push(csn);
    }
  }
  return out;
}
