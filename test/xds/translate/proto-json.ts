// Strict proto3-JSON decoding for tests: the hub's own reader (the one its
// REST endpoints use, src/xds/transport/proto-json.ts) refuses unknown keys,
// unknown enum names, scalars of the wrong kind and doubly-set oneofs, as
// Envoy does when it loads a bootstrap; the bytes are decoded back to a plain
// object with JSON (lowerCamelCase) names.
import { lookupType } from '../../../src/xds/transport/envoy-proto';
import { jsonToBytes } from '../../../src/xds/transport/proto-json';

/** Parses proto3 JSON text strictly as `typeName` and returns the decoded message as a plain object. */
export function parseStrict(typeName: string, text: string): any {
  const type = lookupType(typeName);
  return type.toObject(type.decode(jsonToBytes(type, JSON.parse(text))), { json: true, enums: String, longs: Number });
}
