// The upstream Envoy v3 protos, loaded once into one protobufjs Root. Translation
// encodes resources with it; the transport wraps and decodes with it.
//
// Field names in the Root are lowerCamelCase (protobufjs' default), which is also
// proto3 JSON's spelling. `encodeResource` accepts snake_case too (it is how
// Envoy's docs spell fields) and rejects any field the message does not have:
// protobufjs' own fromObject silently drops unknown fields, which would turn a
// typo into a resource that encodes fine and configures nothing.
import { dirname, join } from 'node:path';
import * as protobuf from 'protobufjs';
import { invalid } from '../../errors';
import { loadProtoRoot } from '../../proto-dir';

const DEPS = join(dirname(require.resolve('@grpc/grpc-js-xds/package.json')), 'deps');
/** Include dirs, in the order upstream expects them; protobufjs' own copy last, for google/protobuf/*.proto. */
const INCLUDE_DIRS = [
  ...['envoy-api', 'xds', 'googleapis', 'protoc-gen-validate'].map((d) => join(DEPS, d)),
  dirname(require.resolve('protobufjs/package.json')),
];

const FILES = [
  'envoy/config/cluster/v3/cluster.proto',
  'envoy/config/endpoint/v3/endpoint.proto',
  'envoy/config/route/v3/route.proto',
  'envoy/config/listener/v3/listener.proto',
  'envoy/extensions/filters/network/http_connection_manager/v3/http_connection_manager.proto',
  'envoy/extensions/filters/http/router/v3/router.proto',
  'envoy/extensions/filters/network/tcp_proxy/v3/tcp_proxy.proto',
  'envoy/extensions/upstreams/http/v3/http_protocol_options.proto',
  'envoy/config/bootstrap/v3/bootstrap.proto',
  'envoy/service/discovery/v3/discovery.proto',
  'envoy/service/discovery/v3/ads.proto',
  'envoy/service/cluster/v3/cds.proto',
  'envoy/service/endpoint/v3/eds.proto',
  'envoy/service/listener/v3/lds.proto',
  'envoy/service/route/v3/rds.proto',
  'envoy/service/secret/v3/sds.proto',
  'envoy/extensions/transport_sockets/tls/v3/secret.proto',
  'envoy/extensions/transport_sockets/tls/v3/tls.proto',
  'envoy/extensions/filters/network/rbac/v3/rbac.proto',
  'envoy/extensions/filters/http/rbac/v3/rbac.proto',
  'envoy/extensions/filters/listener/tls_inspector/v3/tls_inspector.proto',
];

let root: protobuf.Root | undefined;

/** The shared Root, loaded on first use (loading takes a few hundred ms). */
export function envoyRoot(): protobuf.Root {
  return (root ??= loadProtoRoot(INCLUDE_DIRS, FILES));
}

const types = new Map<string, protobuf.Type>();

/** A message type by its full name, e.g. "envoy.config.cluster.v3.Cluster". Throws when unknown. */
export function lookupType(fullName: string): protobuf.Type {
  const name = fullName.startsWith('.') ? fullName.slice(1) : fullName;
  let t = types.get(name);
  if (!t) {
    t = envoyRoot().lookupType(name);
    types.set(name, t);
  }
  return t;
}

/** The message type an Any type URL names (text after the last '/'). */
export function typeOfUrl(typeUrl: string): protobuf.Type {
  return lookupType(typeUrl.slice(typeUrl.lastIndexOf('/') + 1));
}

/**
 * Encodes a plain object as `typeName`. Throws HubError INVALID_ARGUMENT naming
 * the field path (e.g. "edsClusterConfig.edsConfg") on a field the message does
 * not have or a value of the wrong shape.
 */
export function encodeResource(typeName: string, plain: Record<string, unknown>): Uint8Array {
  const type = lookupType(typeName);
  const normalized = normalize(type, plain, '');
  let message: protobuf.Message;
  try {
    message = type.fromObject(normalized);
  } catch (err) {
    // protobufjs reports "<Type>.<field>: <reason>"; keep the field part.
    const text = (err as Error).message;
    const m = /^[\w.]*?\.(\w+): (.*)$/.exec(text);
    throw invalid(m ? m[1]! : typeName, m ? m[2]! : text);
  }
  return type.encode(message).finish();
}

const join2 = (path: string, key: string): string => (path === '' ? key : `${path}.${key}`);

/** protobufjs' own rule (only a letter after '_' is raised), so e.g. consecutive_5xx stays as the Root spells it. */
const camel = (s: string): string => protobuf.util.camelCase(s);

/** Checks every key against the schema (recursing into messages and typed Any) and spells keys in camelCase. */
function normalize(type: protobuf.Type, obj: unknown, path: string): Record<string, unknown> {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
    throw invalid(path || type.name, `expected an object (${type.fullName.slice(1)})`);
  }
  const out: Record<string, unknown> = {};
  const isAny = type.fullName === '.google.protobuf.Any';
  const src = obj as Record<string, unknown>;
  if (isAny && typeof src['@type'] === 'string') {
    let inner: protobuf.Type;
    try {
      inner = typeOfUrl(src['@type']);
    } catch {
      throw invalid(join2(path, '@type'), `unknown message type "${src['@type']}"`);
    }
    const { '@type': url, ...rest } = src;
    return { '@type': url, ...normalize(inner, rest, path) };
  }
  for (const [key, value] of Object.entries(src)) {
    const field = type.fields[key] ?? type.fields[camel(key)];
    if (!field) throw invalid(join2(path, key), `no such field in ${type.fullName.slice(1)}`);
    out[field.name] = value === undefined || value === null ? value : normalizeField(field, value, join2(path, key));
  }
  return out;
}

function normalizeField(field: protobuf.Field, value: unknown, path: string): unknown {
  field.resolve();
  const msg = field.resolvedType instanceof protobuf.Type ? field.resolvedType : undefined;
  if (!msg) return value;
  if (field.map) {
    const entries = Object.entries(value as Record<string, unknown>);
    return Object.fromEntries(entries.map(([k, v]) => [k, normalize(msg, v, `${path}[${k}]`)]));
  }
  if (field.repeated) {
    if (!Array.isArray(value)) throw invalid(path, 'expected a list');
    return value.map((v, i) => normalize(msg, v, `${path}[${i}]`));
  }
  return normalize(msg, value, path);
}
