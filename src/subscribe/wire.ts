// StreamItems → encoded subscribe.Event bytes, once per item. Buffer items and
// cached snapshot items are shared objects, so a WeakMap keyed by the item
// makes N subscribers cost one conversion and one encode; the bytes live as
// long as some reader can still reach the item.
import { configKind } from '../catalog/config-kinds';
import type { CatalogEvent, ConfigEntryKind } from '../catalog/types';
import { convertMessage } from './pbjson';
import { loadSubscribeProto, type SubscribeProto } from './proto';
import type { StreamItem } from './types';

/** Op is written only when it is not the proto3 default (Register / Upsert = 0), as Go's encoder does. */
function op(nonDefault: boolean, name: string): { Op?: string } {
  return nonDefault ? { Op: name } : {};
}

export interface EventEncoder {
  /** The encoded Event for an item; the same Buffer for the same item object. */
  encode(item: StreamItem): Buffer;
  /** The plain Event object (PascalCase, decimal-string indexes) before encoding. */
  toWireObject(item: StreamItem): Record<string, unknown>;
}

export function createEventEncoder(proto: SubscribeProto = loadSubscribeProto()): EventEncoder {
  const encoded = new WeakMap<StreamItem, Buffer>();
  const t = (name: string) => proto.root.lookupType(name);
  const CSN = t('hashicorp.consul.internal.service.CheckServiceNode');
  const ConfigEntry = t('hashicorp.consul.internal.configentry.ConfigEntry');

  function eventObject(e: CatalogEvent): Record<string, unknown> {
    const Index = String(e.index);
    const p = e.payload;
    switch (p.type) {
      case 'service-health':
        return {
          Index,
          ServiceHealth: { ...op(p.op === 'deregister', 'Deregister'), CheckServiceNode: convertMessage(CSN, p.csn) },
        };
      case 'config-entry':
        return { Index, ConfigEntry: { ...op(p.op === 'delete', 'Delete'), ConfigEntry: configEntryObject(p.entry) } };
      case 'service-list':
        return {
          Index,
          Service: {
            ...op(p.op === 'deregister', 'Deregister'),
            Name: p.name,
            EnterpriseMeta: { Namespace: p.namespace, Partition: p.partition },
          },
        };
    }
  }

  function configEntryObject(entry: {
    Kind: ConfigEntryKind;
    Name: string;
    [k: string]: unknown;
  }): Record<string, unknown> {
    const head =
      convertMessage(ConfigEntry, {
        Name: entry.Name,
        Namespace: entry.Namespace,
        Partition: entry.Partition,
        CreateIndex: entry.CreateIndex,
        ModifyIndex: entry.ModifyIndex,
      }) ?? {};
    const spec = configKind(entry.Kind).wire;
    if (spec === undefined) return head;
    return {
      ...head,
      Kind: spec.kind,
      [spec.member]: convertMessage(t(`hashicorp.consul.internal.configentry.${spec.member}`), entry) ?? {},
    };
  }

  function toWireObject(item: StreamItem): Record<string, unknown> {
    switch (item.kind) {
      case 'new-snapshot-to-follow':
        return { NewSnapshotToFollow: true };
      case 'end-of-snapshot':
        return { Index: String(item.index), EndOfSnapshot: true };
      case 'events': {
        const first = item.events[0];
        if (item.events.length === 1 && first !== undefined)
          return { ...eventObject(first), Index: String(item.index) };
        // One log entry's events for one subject travel together, to be applied at once.
        return { Index: String(item.index), EventBatch: { Events: item.events.map(eventObject) } };
      }
    }
  }

  return {
    toWireObject,
    encode(item) {
      let bytes = encoded.get(item);
      if (bytes === undefined) {
        bytes = proto.encodeEvent(toWireObject(item));
        encoded.set(item, bytes);
      }
      return bytes;
    },
  };
}
