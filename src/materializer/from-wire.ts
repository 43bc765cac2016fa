// Wire → internal: decoded subscribe.Event objects (proto-loader options: keepCase,
// longs String, enums String, defaults, oneofs) back into StreamItems carrying
// CatalogEvents in Consul's JSON API shape — the inverse of src/subscribe/wire.ts
// and pbjson.ts. RaftIndex flattens into CreateIndex/ModifyIndex numbers,
// EnterpriseMeta into Namespace/Partition, Durations become Go duration strings,
// Struct becomes plain JSON, and a config entry's oneof body spreads into the
// entry. Fields the internal types require are always present; optional ones
// are dropped when empty (Go's omitempty), so internal → wire → internal is the
// identity for values the hub itself stores.
import * as protobuf from 'protobufjs';
import { CONFIG_KINDS, KIND_BY_WIRE } from '../catalog/config-kinds';
import { configSubject } from '../catalog/events';
import { type CatalogEvent, type ConfigEntry, type EventPayload, SUBJECT_NONE, Topic } from '../catalog/types';
import { HubError } from '../errors';
import type { Event__Output } from '../gen/subscribe/subscribe/Event';
import { loadSubscribeProto, type SubscribeProto } from '../subscribe/proto';
import type { StreamItem } from '../subscribe/types';
import { goDuration } from './go-duration';

type Obj = Record<string, unknown>;

const SVC = 'hashicorp.consul.internal.service';
const REQUIRED: Record<string, ReadonlySet<string>> = {
  [`.${SVC}.Node`]: new Set(['ID', 'Node', 'Address', 'Datacenter', 'TaggedAddresses', 'Meta']),
  [`.${SVC}.NodeService`]: new Set([
    'Kind',
    'ID',
    'Service',
    'Tags',
    'Address',
    'TaggedAddresses',
    'Meta',
    'Port',
    'Weights',
    'EnableTagOverride',
  ]),
  [`.${SVC}.HealthCheck`]: new Set([
    'Node',
    'CheckID',
    'Name',
    'Status',
    'Notes',
    'Output',
    'ServiceID',
    'ServiceName',
    'ServiceTags',
    'Type',
    'Interval',
    'Timeout',
    'Definition',
  ]),
  [`.${SVC}.ServiceAddress`]: new Set(['Address', 'Port']),
  [`.${SVC}.Weights`]: new Set(['Passing', 'Warning']),
};

function isEmpty(v: unknown): boolean {
  if (v === undefined || v === null || v === '' || v === false || v === 0) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === 'object') return Object.keys(v as object).length === 0;
  return false;
}

/** "ProxyModeTransparent" → "transparent"; a zero "…Default"/"…Unknown" value means unset. */
function enumJson(e: protobuf.Enum, value: unknown): unknown {
  if (typeof value !== 'string') return value;
  if (e.values[value] === 0 && /(Default|Unknown)$/.test(value)) return undefined;
  const stripped = value.startsWith(e.name) && value.length > e.name.length ? value.slice(e.name.length) : value;
  return stripped.toLowerCase();
}

function valueJson(v: unknown): unknown {
  const o = v as Obj | null;
  if (o === null || typeof o !== 'object') return null;
  if (o.structValue) return structJson(o.structValue);
  if (o.listValue) return (((o.listValue as Obj).values as unknown[] | undefined) ?? []).map(valueJson);
  if ('stringValue' in o && o.stringValue !== undefined) return o.stringValue;
  if ('numberValue' in o && o.numberValue !== undefined) return o.numberValue;
  if ('boolValue' in o && o.boolValue !== undefined) return o.boolValue;
  return null;
}

function structJson(s: unknown): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(((s as Obj | null)?.fields as Obj | undefined) ?? {})) out[k] = valueJson(v);
  return out;
}

function singleJson(field: protobuf.Field, v: unknown): unknown {
  const t = field.resolvedType;
  if (t instanceof protobuf.Enum) return enumJson(t, v);
  if (t instanceof protobuf.Type) {
    if (v === null || v === undefined) return undefined;
    const o = v as Obj;
    switch (t.fullName) {
      case '.google.protobuf.Duration':
        return goDuration(Number(o.seconds ?? 0), Number(o.nanos ?? 0));
      case '.google.protobuf.Timestamp':
        return new Date(Number(o.seconds ?? 0) * 1000 + Math.round(Number(o.nanos ?? 0) / 1e6)).toISOString();
      case '.google.protobuf.Struct':
        return structJson(o);
      case '.google.protobuf.Value':
        return valueJson(o);
      case `.${SVC}.HeaderValue`:
        return (o.Value as unknown[] | undefined) ?? [];
    }
    return messageJson(t, o);
  }
  if (field.type === 'uint64' || field.type === 'int64' || field.type === 'fixed64' || field.type === 'sint64')
    return Number(v);
  return v;
}

/** A decoded message → Consul JSON, flattening RaftIndex and EnterpriseMeta into the parent. */
export function messageJson(type: protobuf.Type, msg: Obj): Obj {
  const required = REQUIRED[type.fullName];
  const out: Obj = {};
  for (const field of type.fieldsArray) {
    const raw = msg[field.name];
    if (raw === undefined || raw === null) continue;
    let value: unknown;
    if (field.map) {
      value = Object.fromEntries(Object.entries(raw as Obj).map(([k, v]) => [k, singleJson(field, v)]));
    } else if (field.repeated) {
      value = (raw as unknown[]).map((v) => singleJson(field, v));
    } else value = singleJson(field, raw);
    if (field.name === 'RaftIndex' && field.resolvedType instanceof protobuf.Type) {
      const ri = value as Obj;
      out.CreateIndex = ri.CreateIndex ?? 0;
      out.ModifyIndex = ri.ModifyIndex ?? 0;
      continue;
    }
    if (field.name === 'EnterpriseMeta' && field.resolvedType instanceof protobuf.Type) {
      const em = value as Obj;
      if (!isEmpty(em.Namespace)) out.Namespace = em.Namespace;
      if (!isEmpty(em.Partition)) out.Partition = em.Partition;
      continue;
    }
    if (isEmpty(value) && !required?.has(field.name)) continue;
    out[field.name] = value;
  }
  return out;
}

export interface WireDecoder {
  /** One decoded Event → the StreamItem it frames or carries (batches flattened into one item). */
  item(event: Event__Output, topic: Topic, subjectKey: string | undefined): StreamItem;
}

/** The protobuf types the decoder reads records with. */
interface WireTypes {
  t(name: string): ReturnType<SubscribeProto['root']['lookupType']>;
  CSN: ReturnType<SubscribeProto['root']['lookupType']>;
  ConfigEntryType: ReturnType<SubscribeProto['root']['lookupType']>;
}

function csnJson(w: WireTypes, raw: Obj): Obj {
  const csn = messageJson(w.CSN, raw);
  // Records always carry their indexes and the fields the hub's types require.
  for (const part of [
    csn.Node as Obj | undefined,
    csn.Service as Obj | undefined,
    ...((csn.Checks as Obj[] | undefined) ?? []),
  ]) {
    if (part && part.CreateIndex === undefined) {
      part.CreateIndex = 0;
      part.ModifyIndex = 0;
    }
  }
  if (csn.Checks === undefined) csn.Checks = [];
  const svc = csn.Service as Obj | undefined;
  if (svc && svc.Weights === undefined) svc.Weights = { Passing: 1, Warning: 1 };
  for (const c of csn.Checks as Obj[]) if (c.Definition === undefined) c.Definition = {};
  return csn;
}

function configEntryJson(w: WireTypes, raw: Obj): ConfigEntry {
  const kind = KIND_BY_WIRE.get(String(raw.Kind));
  if (kind === undefined) throw new HubError('INTERNAL', `config entry of unsupported kind ${String(raw.Kind)}`);
  const { member } = CONFIG_KINDS[kind].wire;
  const head = messageJson(w.ConfigEntryType, { ...raw, [member]: undefined, Kind: undefined });
  const body = raw[member]
    ? messageJson(w.t(`hashicorp.consul.internal.configentry.${member}`), raw[member] as Obj)
    : {};
  return {
    ...body,
    ...head,
    Kind: kind,
    Name: String(raw.Name ?? ''),
    CreateIndex: Number(head.CreateIndex ?? 0),
    ModifyIndex: Number(head.ModifyIndex ?? 0),
  } as ConfigEntry;
}

function payloadOf(
  w: WireTypes,
  e: Event__Output,
): { payload: EventPayload; subject: (topic: Topic, key?: string) => string } {
  if (e.ServiceHealth) {
    const csn = csnJson(w, e.ServiceHealth.CheckServiceNode as unknown as Obj) as unknown as Extract<
      EventPayload,
      { type: 'service-health' }
    >['csn'];
    const op = e.ServiceHealth.Op === 'Deregister' ? 'deregister' : 'register';
    return {
      payload: { type: 'service-health', op, csn },
      subject: (topic, key) =>
        (topic === Topic.ServiceHealth || key === undefined ? csn.Service.Service : key).toLowerCase(),
    };
  }
  if (e.ConfigEntry) {
    const entry = configEntryJson(w, e.ConfigEntry.ConfigEntry as unknown as Obj);
    const op = e.ConfigEntry.Op === 'Delete' ? 'delete' : 'upsert';
    return {
      payload: { type: 'config-entry', op, entry },
      subject: () => configSubject(entry),
    };
  }
  if (e.Service) {
    const em = (e.Service.EnterpriseMeta ?? {}) as Obj;
    return {
      payload: {
        type: 'service-list',
        op: e.Service.Op === 'Deregister' ? 'deregister' : 'register',
        name: e.Service.Name,
        namespace: String(em.Namespace || 'default'),
        partition: String(em.Partition || 'default'),
      },
      subject: () => SUBJECT_NONE,
    };
  }
  throw new HubError('INTERNAL', `event at index ${e.Index} has no payload the hub knows (${e.Payload ?? 'none'})`);
}

function catalogEvent(w: WireTypes, e: Event__Output, topic: Topic, key: string | undefined): CatalogEvent {
  const { payload, subject } = payloadOf(w, e);
  return { topic, subject: subject(topic, key), index: BigInt(e.Index || '0'), payload };
}

export function createWireDecoder(proto: SubscribeProto = loadSubscribeProto()): WireDecoder {
  const t = (name: string) => proto.root.lookupType(name);
  const w: WireTypes = {
    t,
    CSN: t(`${SVC}.CheckServiceNode`),
    ConfigEntryType: t('hashicorp.consul.internal.configentry.ConfigEntry'),
  };

  return {
    item(event, topic, key) {
      const index = BigInt(event.Index || '0');
      if (event.Payload === 'EndOfSnapshot' || event.EndOfSnapshot) return { kind: 'end-of-snapshot', index };
      if (event.Payload === 'NewSnapshotToFollow' || event.NewSnapshotToFollow)
        return { kind: 'new-snapshot-to-follow' };
      if (event.EventBatch) {
        return {
          kind: 'events',
          index,
          events: event.EventBatch.Events.map((inner) => catalogEvent(w, inner, topic, key)),
        };
      }
      return { kind: 'events', index, events: [catalogEvent(w, event, topic, key)] };
    },
  };
}
