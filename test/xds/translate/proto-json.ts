// A strict proto3-JSON reader for tests: converts canonical JSON (snake_case or
// lowerCamel keys, Durations as "1.5s", Any with "@type", wrappers as bare
// values) into a protobufjs message, and fails on any key the schema does not
// have, on unknown enum names and on wrong scalar kinds — as Envoy does when it
// loads a bootstrap with unknown fields rejected.
import * as protobuf from 'protobufjs';
import { lookupType } from '../../../src/xds/transport/envoy-proto';

const WRAPPERS = new Set(['DoubleValue', 'FloatValue', 'Int64Value', 'UInt64Value', 'Int32Value', 'UInt32Value', 'BoolValue', 'StringValue', 'BytesValue'].map((n) => `.google.protobuf.${n}`));

function fieldFor(type: protobuf.Type, key: string): protobuf.Field | undefined {
  return type.fields[key] ?? type.fields[protobuf.util.camelCase(key)];
}

function scalar(field: protobuf.Field, value: unknown, path: string): unknown {
  const t = field.type;
  if (t === 'string') {
    if (typeof value !== 'string') throw new TypeError(`${path}: expected a string`);
  } else if (t === 'bool') {
    if (typeof value !== 'boolean') throw new TypeError(`${path}: expected a boolean`);
  } else if (t === 'bytes') {
    if (typeof value !== 'string') throw new TypeError(`${path}: expected base64 text`);
  } else if (['int32', 'uint32', 'sint32', 'fixed32', 'sfixed32', 'int64', 'uint64', 'sint64', 'fixed64', 'sfixed64', 'double', 'float'].includes(t)) {
    const n = typeof value === 'string' ? Number(value) : value;
    if (typeof n !== 'number' || !Number.isFinite(n)) throw new TypeError(`${path}: expected a number`);
    if (t.includes('int') || t.includes('fixed')) {
      if (!Number.isInteger(n) || (t.startsWith('u') || t.startsWith('fixed') ? n < 0 : false)) throw new TypeError(`${path}: expected an integer of ${t}`);
    }
    return n;
  }
  return value;
}

function convertValue(field: protobuf.Field, value: unknown, path: string): unknown {
  field.resolve();
  if (field.resolvedType instanceof protobuf.Enum) {
    const values = field.resolvedType.values;
    if (typeof value === 'string' && value in values) return values[value];
    if (typeof value === 'number' && Object.values(values).includes(value)) return value;
    throw new TypeError(`${path}: ${JSON.stringify(value)} is not a ${field.resolvedType.name}`);
  }
  if (field.resolvedType instanceof protobuf.Type) return convertMessage(field.resolvedType, value, path);
  return scalar(field, value, path);
}

/** Converts proto3 JSON for `type` into a plain object protobufjs' fromObject takes as-is. */
export function convertMessage(type: protobuf.Type, json: unknown, path: string): Record<string, unknown> {
  const full = type.fullName;
  if (full === '.google.protobuf.Duration') {
    const m = typeof json === 'string' ? /^(-?\d+)(?:\.(\d{1,9}))?s$/.exec(json) : null;
    if (!m) throw new TypeError(`${path}: expected a duration like "1.5s"`);
    return { seconds: Number(m[1]), nanos: Number((m[2] ?? '').padEnd(9, '0')) };
  }
  if (WRAPPERS.has(full)) return { value: scalar(type.fields['value']!, json, path) };
  if (json === null || typeof json !== 'object' || Array.isArray(json)) throw new TypeError(`${path}: expected an object for ${full.slice(1)}`);
  const obj = json as Record<string, unknown>;
  if (full === '.google.protobuf.Any') {
    const url = obj['@type'];
    if (typeof url !== 'string') throw new TypeError(`${path}: Any without @type`);
    const inner = lookupType(url.slice(url.lastIndexOf('/') + 1));
    const { '@type': _drop, ...rest } = obj;
    const value = inner.encode(inner.fromObject(convertMessage(inner, rest, `${path}<${inner.name}>`))).finish();
    // protobufjs' bundled any.proto keeps the field name type_url; a loaded one may camelCase it.
    return { [type.fields['type_url'] ? 'type_url' : 'typeUrl']: url, value };
  }
  const out: Record<string, unknown> = {};
  const oneofsSeen = new Map<string, string>();
  for (const [key, value] of Object.entries(obj)) {
    const field = fieldFor(type, key);
    if (!field) throw new TypeError(`${path}.${key}: unknown field of ${full.slice(1)}`);
    if (field.partOf) {
      const other = oneofsSeen.get(field.partOf.name);
      if (other) throw new TypeError(`${path}.${key}: oneof ${field.partOf.name} already set by ${other}`);
      oneofsSeen.set(field.partOf.name, key);
    }
    if (field.map) {
      if (value === null || typeof value !== 'object') throw new TypeError(`${path}.${key}: expected a map`);
      out[field.name] = Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, convertValue(field, v, `${path}.${key}[${k}]`)]));
    } else if (field.repeated) {
      if (!Array.isArray(value)) throw new TypeError(`${path}.${key}: expected a list`);
      out[field.name] = value.map((v, i) => convertValue(field, v, `${path}.${key}[${i}]`));
    } else {
      out[field.name] = convertValue(field, value, `${path}.${key}`);
    }
  }
  return out;
}

/** Parses proto3 JSON text strictly as `typeName` and returns the decoded message as a plain object. */
export function parseStrict(typeName: string, text: string): any {
  const type = lookupType(typeName);
  const plain = convertMessage(type, JSON.parse(text), typeName.split('.').pop()!);
  const err = type.verify(plain);
  if (err) throw new TypeError(err);
  const bytes = type.encode(type.fromObject(plain)).finish();
  return type.toObject(type.decode(bytes), { json: true, enums: String, longs: Number });
}
