// Canonical proto3 JSON for decoded protobufjs messages — the form Envoy's REST
// xDS client parses and its /config_dump prints: lowerCamelCase names, Any as
// `{"@type": url, ...fields}`, Duration as "5s", Timestamp as RFC 3339, wrapper
// types as bare values, Struct as plain JSON, 64-bit integers as strings, enums
// by name, default values left out. protobufjs' own toObject writes Any as
// bytes and Duration as {seconds, nanos}, which Envoy refuses.
import * as protobuf from 'protobufjs';
import { invalid } from '../../errors';
import { typeOfUrl } from './envoy-proto';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const WRAPPERS = new Set([
  'DoubleValue',
  'FloatValue',
  'Int64Value',
  'UInt64Value',
  'Int32Value',
  'UInt32Value',
  'BoolValue',
  'StringValue',
  'BytesValue',
]);
const LONG_TYPES = new Set(['int64', 'uint64', 'sint64', 'fixed64', 'sfixed64']);

/** proto3 JSON name: underscores dropped, the next character upper-cased (protobufjs keeps "_5" in e.g. consecutive_5xx). */
function jsonName(field: protobuf.Field): string {
  return field.name.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

function longText(v: unknown): string {
  return typeof v === 'object' && v !== null ? (v as protobuf.Long).toString() : String(v);
}

function nanosText(nanos: number): string {
  if (nanos === 0) return '';
  const digits = String(nanos).padStart(9, '0');
  // Canonical output uses 3, 6 or 9 fractional digits.
  return `.${digits.endsWith('000000') ? digits.slice(0, 3) : digits.endsWith('000') ? digits.slice(0, 6) : digits}`;
}

function durationText(m: Record<string, unknown>): string {
  const seconds = Number(longText(m['seconds'] ?? 0));
  const nanos = Number(m['nanos'] ?? 0);
  const negative = seconds < 0 || nanos < 0;
  return `${negative ? '-' : ''}${Math.abs(seconds)}${nanosText(Math.abs(nanos))}s`;
}

function timestampText(m: Record<string, unknown>): string {
  const seconds = Number(longText(m['seconds'] ?? 0));
  const nanos = Number(m['nanos'] ?? 0);
  return `${new Date(seconds * 1000).toISOString().slice(0, 19)}${nanosText(nanos)}Z`;
}

const VALUE_KINDS = ['nullValue', 'numberValue', 'stringValue', 'boolValue', 'structValue', 'listValue'];

function valueJson(v: Record<string, unknown> | undefined | null): Json {
  if (!v) return null;
  // Decoded messages name the set member through the oneof's virtual field; plain objects by their own key.
  const kind = typeof v['kind'] === 'string' ? v['kind'] : VALUE_KINDS.find((k) => Object.hasOwn(v, k));
  switch (kind) {
    case 'structValue':
      return structJson(v['structValue'] as Record<string, unknown>);
    case 'listValue':
      return ((v['listValue'] as { values?: Record<string, unknown>[] }).values ?? []).map(valueJson);
    case 'stringValue':
      return String(v['stringValue']);
    case 'numberValue':
      return Number(v['numberValue']);
    case 'boolValue':
      return Boolean(v['boolValue']);
    default:
      return null;
  }
}

function structJson(s: Record<string, unknown>): Json {
  const fields = (s['fields'] ?? {}) as Record<string, Record<string, unknown>>;
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, valueJson(v)]));
}

function scalarJson(field: protobuf.Field, v: unknown): Json {
  if (field.resolvedType instanceof protobuf.Enum) {
    return field.resolvedType.valuesById[v as number] ?? (v as number);
  }
  if (LONG_TYPES.has(field.type)) return longText(v);
  if (field.type === 'bytes') return Buffer.from(v as Uint8Array).toString('base64');
  if ((field.type === 'double' || field.type === 'float') && !Number.isFinite(v as number)) return String(v);
  return v as Json;
}

function isDefault(field: protobuf.Field, v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (field.resolvedType instanceof protobuf.Type) return false;
  if (field.type === 'bytes') return (v as Uint8Array).length === 0;
  if (LONG_TYPES.has(field.type)) return longText(v) === '0';
  return v === 0 || v === false || v === '';
}

function fieldJson(field: protobuf.Field, v: unknown): Json {
  return field.resolvedType instanceof protobuf.Type
    ? messageJson(field.resolvedType, v as Record<string, unknown>)
    : scalarJson(field, v);
}

/** A decoded message (protobufjs instance or plain object with the Root's field names) as canonical proto3 JSON. */
export function messageJson(type: protobuf.Type, m: Record<string, unknown>): Json {
  switch (type.fullName) {
    case '.google.protobuf.Any': {
      const url = String(m['typeUrl'] ?? m['type_url'] ?? '');
      const inner = typeOfUrl(url);
      const body = messageJson(inner, inner.decode(m['value'] as Uint8Array) as unknown as Record<string, unknown>);
      // A well-known type with a non-object JSON form goes under "value".
      return body !== null &&
        typeof body === 'object' &&
        !Array.isArray(body) &&
        !inner.fullName.startsWith('.google.protobuf.')
        ? { '@type': url, ...body }
        : { '@type': url, value: body };
    }
    case '.google.protobuf.Duration':
      return durationText(m);
    case '.google.protobuf.Timestamp':
      return timestampText(m);
    case '.google.protobuf.Struct':
      return structJson(m);
    case '.google.protobuf.Value':
      return valueJson(m);
    case '.google.protobuf.ListValue':
      return ((m['values'] ?? []) as Record<string, unknown>[]).map(valueJson);
    case '.google.protobuf.Empty':
      return {};
  }
  if (type.fullName.startsWith('.google.protobuf.') && WRAPPERS.has(type.name)) {
    return scalarJson(type.fields['value']!, m['value'] ?? type.fields['value']!.typeDefault);
  }
  const out: Record<string, Json> = {};
  for (const field of type.fieldsArray) {
    field.resolve();
    const v = m[field.name];
    if (field.map) {
      const entries = Object.entries((v ?? {}) as Record<string, unknown>);
      if (entries.length > 0)
        out[jsonName(field)] = Object.fromEntries(entries.map(([k, x]) => [k, fieldJson(field, x)]));
    } else if (field.repeated) {
      const list = (v ?? []) as unknown[];
      if (list.length > 0) out[jsonName(field)] = list.map((x) => fieldJson(field, x));
    } else if (field.partOf ? v !== undefined && v !== null && Object.hasOwn(m, field.name) : !isDefault(field, v)) {
      // A oneof member is written when set, even at its default value.
      out[jsonName(field)] = fieldJson(field, v);
    }
  }
  return out;
}

/** Decodes `bytes` as `type` and returns its canonical proto3 JSON. */
export function bytesToJson(type: protobuf.Type, bytes: Uint8Array): Json {
  return messageJson(type, type.decode(bytes) as unknown as Record<string, unknown>);
}

// ── Reading canonical proto3 JSON (REST requests) ──

const join2 = (path: string, key: string): string => (path === '' ? key : `${path}.${key}`);

function fieldByJsonKey(type: protobuf.Type, key: string): protobuf.Field | undefined {
  return (
    type.fields[key] ?? type.fieldsArray.find((f) => jsonName(f) === key || f.name === protobuf.util.camelCase(key))
  );
}

function secondsAndNanos(text: unknown, path: string, pattern: RegExp): { seconds: number; nanos: number } {
  const m = typeof text === 'string' ? pattern.exec(text) : null;
  if (!m) throw invalid(path, `expected ${pattern === DURATION ? 'a duration like "1.5s"' : 'an RFC 3339 timestamp'}`);
  return { seconds: Number(m[1]), nanos: Number((m[2] ?? '').padEnd(9, '0')) };
}
const DURATION = /^(-?\d+)(?:\.(\d{1,9}))?s$/;

function valuePlain(v: unknown): Record<string, unknown> {
  if (v === null) return { nullValue: 0 };
  if (typeof v === 'number') return { numberValue: v };
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'boolean') return { boolValue: v };
  if (Array.isArray(v)) return { listValue: { values: v.map(valuePlain) } };
  return { structValue: structPlain(v as Record<string, unknown>) };
}

function structPlain(o: Record<string, unknown>): Record<string, unknown> {
  return { fields: Object.fromEntries(Object.entries(o).map(([k, v]) => [k, valuePlain(v)])) };
}

const NUMBER_TYPES = new Set(['int32', 'uint32', 'sint32', 'fixed32', 'sfixed32', 'double', 'float', ...LONG_TYPES]);

/** A scalar of the field's kind (numbers may come as strings, as proto3 JSON writes 64-bit ones), else INVALID_ARGUMENT. */
function scalarPlain(field: protobuf.Field, v: unknown, path: string): unknown {
  if (field.resolvedType instanceof protobuf.Enum) {
    const values = field.resolvedType.values;
    if (typeof v === 'string' && v in values) return values[v];
    if (typeof v === 'number' && field.resolvedType.valuesById[v] !== undefined) return v;
    throw invalid(path, `${JSON.stringify(v)} is not a ${field.resolvedType.name}`);
  }
  const t = field.type;
  if (t === 'string' || t === 'bytes') {
    if (typeof v !== 'string') throw invalid(path, `expected ${t === 'bytes' ? 'base64 text' : 'a string'}`);
  } else if (t === 'bool') {
    if (typeof v !== 'boolean') throw invalid(path, 'expected true or false');
  } else if (NUMBER_TYPES.has(t)) {
    const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
    if (typeof n !== 'number' || !Number.isFinite(n)) throw invalid(path, `expected a number (${t})`);
    if (t !== 'double' && t !== 'float' && (!Number.isInteger(n) || (/^(uint|fixed)/.test(t) && n < 0)))
      throw invalid(path, `expected an integer of ${t}`);
  }
  return v;
}

function fieldPlain(field: protobuf.Field, v: unknown, path: string): unknown {
  field.resolve();
  return field.resolvedType instanceof protobuf.Type
    ? plainFromJson(field.resolvedType, v, path)
    : scalarPlain(field, v, path);
}

/**
 * Canonical proto3 JSON (either key spelling) → a plain object protobufjs'
 * fromObject takes. A key the message does not have, a scalar of the wrong
 * kind, an unknown enum name or two members of one oneof is an
 * INVALID_ARGUMENT naming its path, as for every other input the hub refuses
 * (and as Envoy refuses a bootstrap).
 */
function plainFromJson(type: protobuf.Type, json: unknown, path = ''): Record<string, unknown> {
  switch (type.fullName) {
    case '.google.protobuf.Duration':
      return secondsAndNanos(json, path, DURATION);
    case '.google.protobuf.Timestamp': {
      const t = typeof json === 'string' ? Date.parse(json) : NaN;
      if (Number.isNaN(t)) throw invalid(path, 'expected an RFC 3339 timestamp');
      const frac = /\.(\d{1,9})/.exec(json as string)?.[1] ?? '';
      return { seconds: Math.floor(t / 1000), nanos: Number(frac.padEnd(9, '0')) };
    }
    case '.google.protobuf.Struct':
      if (json === null || typeof json !== 'object' || Array.isArray(json)) throw invalid(path, 'expected an object');
      return structPlain(json as Record<string, unknown>);
    case '.google.protobuf.Value':
      return valuePlain(json);
    case '.google.protobuf.ListValue':
      if (!Array.isArray(json)) throw invalid(path, 'expected a list');
      return { values: json.map(valuePlain) };
  }
  if (type.fullName.startsWith('.google.protobuf.') && WRAPPERS.has(type.name))
    return { value: scalarPlain(type.fields['value']!, json, path || type.name) };
  if (json === null || typeof json !== 'object' || Array.isArray(json))
    throw invalid(path || type.name, `expected an object (${type.fullName.slice(1)})`);
  const src = json as Record<string, unknown>;
  if (type.fullName === '.google.protobuf.Any') {
    const url = src['@type'];
    if (typeof url !== 'string') throw invalid(join2(path, '@type'), 'required in an Any');
    let inner: protobuf.Type;
    try {
      inner = typeOfUrl(url);
    } catch {
      throw invalid(join2(path, '@type'), `unknown message type "${url}"`);
    }
    const { '@type': _url, ...rest } = src;
    const body = inner.fullName.startsWith('.google.protobuf.') && 'value' in rest ? rest['value'] : rest;
    const value = inner.encode(inner.fromObject(plainFromJson(inner, body, path))).finish();
    return { [type.fields['type_url'] ? 'type_url' : 'typeUrl']: url, value };
  }
  const out: Record<string, unknown> = {};
  const oneofs = new Map<string, string>();
  for (const [key, value] of Object.entries(src)) {
    const field = fieldByJsonKey(type, key);
    const at = join2(path, key);
    if (!field) throw invalid(at, `no such field in ${type.fullName.slice(1)}`);
    if (value === null || value === undefined) continue;
    if (field.partOf) {
      const other = oneofs.get(field.partOf.name);
      if (other !== undefined) throw invalid(at, `oneof ${field.partOf.name} is already set by ${other}`);
      oneofs.set(field.partOf.name, key);
    }
    if (field.map) {
      if (typeof value !== 'object' || Array.isArray(value)) throw invalid(at, 'expected a map');
      out[field.name] = Object.fromEntries(
        Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, fieldPlain(field, v, `${at}[${k}]`)]),
      );
    } else if (field.repeated) {
      if (!Array.isArray(value)) throw invalid(at, 'expected a list');
      out[field.name] = value.map((v, i) => fieldPlain(field, v, `${at}[${i}]`));
    } else {
      out[field.name] = fieldPlain(field, value, at);
    }
  }
  return out;
}

/** Canonical proto3 JSON → encoded bytes of `type`. */
export function jsonToBytes(type: protobuf.Type, json: unknown): Uint8Array {
  return type.encode(type.fromObject(plainFromJson(type, json))).finish();
}
