// Converts Consul's JSON API shapes (what the catalog stores) into the object
// form protobufjs encodes, guided by the message's own reflection: the field
// names of the project's protos are Consul's, so most values copy across and
// only the representations differ. Go duration strings ("10s") become
// google.protobuf.Duration, JSON objects become Struct, RFC 3339 strings become
// Timestamp, lower-case enum spellings ("transparent", "allow") find their
// prefixed proto value (ProxyModeTransparent, IntentionActionAllow),
// CreateIndex/ModifyIndex become RaftIndex and Namespace/Partition become
// EnterpriseMeta. Fields the protos do not have are dropped.
import * as protobuf from 'protobufjs';

type Json = unknown;
type PbObject = Record<string, unknown>;

export function convertMessage(type: protobuf.Type, json: Json): PbObject | undefined {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return undefined;
  switch (type.fullName) {
    case '.google.protobuf.Struct':
      return structOf(json as Record<string, Json>);
    case '.google.protobuf.Value':
      return pbValueOf(json);
  }
  const src = json as Record<string, Json>;
  const out: PbObject = {};
  for (const field of type.fieldsArray) {
    const value = sourceValue(field.name, src);
    if (value === undefined || value === null) continue;
    const converted = convertField(field, value);
    // proto3 leaves defaults off the wire; so do we (fewer bytes, same decoding).
    if (converted !== undefined && !isDefault(field, converted)) out[field.name] = converted;
  }
  return out;
}

/** The JSON value for a proto field, including the two places Consul's JSON flattens what the protos nest. */
function sourceValue(name: string, src: Record<string, Json>): Json {
  if (
    name === 'RaftIndex' &&
    src.RaftIndex === undefined &&
    (src.CreateIndex !== undefined || src.ModifyIndex !== undefined)
  ) {
    return { CreateIndex: src.CreateIndex ?? 0, ModifyIndex: src.ModifyIndex ?? 0 };
  }
  if (
    name === 'EnterpriseMeta' &&
    src.EnterpriseMeta === undefined &&
    (src.Namespace !== undefined || src.Partition !== undefined)
  ) {
    return { Namespace: src.Namespace ?? '', Partition: src.Partition ?? '' };
  }
  return src[name];
}

function isDefault(field: protobuf.Field, value: unknown): boolean {
  if (field.map || field.repeated)
    return typeof value === 'object' && value !== null && Object.keys(value).length === 0;
  if (field.options?.proto3_optional === true || field.partOf !== null) return false; // presence matters
  if (field.resolvedType instanceof protobuf.Enum) return value === 0 || field.resolvedType.values[String(value)] === 0;
  return value === '' || value === 0 || value === false || value === '0';
}

function convertField(field: protobuf.Field, value: Json): unknown {
  if (field.map) {
    if (typeof value !== 'object' || Array.isArray(value)) return undefined;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, Json>)) {
      const c = convertSingle(field, v);
      if (c !== undefined) out[k] = c;
    }
    return out;
  }
  if (field.repeated) {
    if (!Array.isArray(value)) return undefined;
    return value.map((v) => convertSingle(field, v)).filter((v) => v !== undefined);
  }
  return convertSingle(field, value);
}

function convertSingle(field: protobuf.Field, value: Json): unknown {
  const resolved = field.resolvedType;
  if (resolved instanceof protobuf.Enum) return enumValue(resolved, value);
  if (resolved instanceof protobuf.Type) {
    switch (resolved.fullName) {
      case '.google.protobuf.Duration':
        return durationOf(value);
      case '.google.protobuf.Timestamp':
        return timestampOf(value);
      case '.hashicorp.consul.internal.service.HeaderValue':
        // Consul's JSON writes a header's values as a bare array.
        return Array.isArray(value) ? { Value: value.map(String) } : convertMessage(resolved, value);
    }
    return convertMessage(resolved, value);
  }
  return scalar(field.type, value);
}

function scalar(type: string, value: Json): unknown {
  switch (type) {
    case 'string':
      return typeof value === 'string'
        ? value
        : typeof value === 'number' || typeof value === 'boolean'
          ? String(value)
          : undefined;
    case 'bool':
      return typeof value === 'boolean' ? value : undefined;
    case 'uint64':
    case 'int64':
      return typeof value === 'number' || typeof value === 'bigint'
        ? String(value)
        : typeof value === 'string'
          ? value
          : undefined;
    default:
      return typeof value === 'number'
        ? value
        : typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))
          ? Number(value)
          : undefined;
  }
}

const norm = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]/g, '');

function enumValue(e: protobuf.Enum, value: Json): string | number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string' || value === '') return undefined;
  if (e.values[value] !== undefined) return value;
  const wanted = norm(value);
  const names = Object.keys(e.values);
  return names.find((n) => norm(n) === wanted) ?? names.find((n) => norm(n).endsWith(wanted));
}

const UNIT_NS: Record<string, number> = { ns: 1, us: 1e3, µs: 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };

/** Go duration ("1m30s", "500ms") or nanoseconds as a number → {seconds, nanos}. */
export function durationOf(value: Json): { seconds: string; nanos: number } | undefined {
  let ns: number;
  if (typeof value === 'number') ns = value;
  else if (typeof value === 'string' && value !== '') {
    const sign = value.startsWith('-') ? -1 : 1;
    const body = value.replace(/^[-+]/, '');
    if (body === '0') return { seconds: '0', nanos: 0 };
    const parts = [...body.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)];
    if (parts.length === 0 || parts.map((p) => p[0]).join('') !== body) return undefined;
    ns = sign * parts.reduce((sum, p) => sum + Number(p[1]) * (UNIT_NS[p[2] as string] as number), 0);
  } else return undefined;
  const seconds = Math.trunc(ns / 1e9);
  return { seconds: String(seconds), nanos: Math.round(ns - seconds * 1e9) };
}

function timestampOf(value: Json): { seconds: string; nanos: number } | undefined {
  if (typeof value !== 'string') return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) return undefined;
  const seconds = Math.floor(ms / 1000);
  return { seconds: String(seconds), nanos: (ms - seconds * 1000) * 1e6 };
}

function structOf(obj: Record<string, Json>): PbObject {
  const fields: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    const c = pbValueOf(v);
    if (c !== undefined) fields[k] = c;
  }
  return { fields };
}

function pbValueOf(v: Json): PbObject | undefined {
  if (v === null) return { nullValue: 0 };
  if (typeof v === 'number') return { numberValue: v };
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'boolean') return { boolValue: v };
  if (Array.isArray(v)) return { listValue: { values: v.map(pbValueOf).filter((x) => x !== undefined) } };
  if (typeof v === 'object') return { structValue: structOf(v as Record<string, Json>) };
  return undefined;
}
