// Request decoding and response framing. Responses are framed by hand from
// bytes the provider encoded once (invariant 5, docs/architecture.md): an Any is built around the
// shared resource bytes, never by re-encoding the resource, and a response body
// is encoded once and shared by every stream that gets the same set; only the
// nonce (field 5 in both response messages) is appended per stream — protobuf
// merges fields in any order, so body ++ nonce is a valid message.
import * as protobuf from 'protobufjs';
import { lookupType } from './envoy-proto';
import type { XdsNode, XdsResource } from './provider';
import { TypeUrl } from './type-urls';
import { v2Root } from './v2-proto';

export type ApiVersion = 'v3' | 'v2';

export interface ErrorDetail {
  code: number;
  message: string;
}

export interface SotwRequest {
  versionInfo: string;
  node: XdsNode | undefined;
  resourceNames: string[];
  typeUrl: string;
  responseNonce: string;
  errorDetail: ErrorDetail | undefined;
}

export interface DeltaRequest {
  node: XdsNode | undefined;
  typeUrl: string;
  subscribe: readonly string[];
  unsubscribe: readonly string[];
  initialVersions: ReadonlyMap<string, string>;
  responseNonce: string;
  errorDetail: ErrorDetail | undefined;
}

const TO_OBJECT: protobuf.IConversionOptions = {
  longs: String,
  enums: String,
  defaults: true,
  arrays: true,
  objects: true,
};

type MessageName = 'DiscoveryRequest' | 'DeltaDiscoveryRequest' | 'DiscoveryResponse' | 'DeltaDiscoveryResponse';
const messageTypes: Record<ApiVersion, Partial<Record<MessageName, protobuf.Type>>> = { v3: {}, v2: {} };

/** Looked up once per (API, message): every request decodes through here. */
function messageType(api: ApiVersion, name: MessageName): protobuf.Type {
  return (messageTypes[api][name] ??=
    api === 'v3' ? lookupType(`envoy.service.discovery.v3.${name}`) : v2Root().lookupType(`envoy.api.v2.${name}`));
}

// biome-ignore lint/suspicious/noExplicitAny: a protobufjs discovery message, decoded or to encode, read and written by the field names its proto declares
type Plain = Record<string, any>;

function nodeOf(n: Plain | null | undefined): XdsNode | undefined {
  if (!n) return undefined;
  return {
    id: String(n.id ?? ''),
    cluster: String(n.cluster ?? ''),
    clientFeatures: Array.isArray(n.clientFeatures) ? n.clientFeatures.map(String) : [],
    userAgent: String(n.userAgentName ?? ''),
  };
}

function errorOf(e: Plain | null | undefined): ErrorDetail | undefined {
  // Presence of the field is the NACK (X-ACK-4), even if code and message are empty.
  if (!e) return undefined;
  return { code: Number(e.code ?? 0), message: String(e.message ?? '') };
}

function sotwRequestFromPlain(o: Plain): SotwRequest {
  return {
    versionInfo: String(o.versionInfo ?? ''),
    node: nodeOf(o.node),
    resourceNames: (o.resourceNames ?? []).map(String),
    typeUrl: String(o.typeUrl ?? ''),
    responseNonce: String(o.responseNonce ?? ''),
    errorDetail: errorOf(o.errorDetail),
  };
}

/**
 * Calls `each` with the bytes of every length-delimited field number `field`
 * of a message: reading a few fields of encoded bytes without a schema.
 */
export function eachField(bytes: Uint8Array, field: number, each: (value: Uint8Array) => void): void {
  const r = protobuf.Reader.create(bytes);
  while (r.pos < r.len) {
    const tag = r.uint32();
    if (tag >>> 3 === field && (tag & 7) === 2) each(r.bytes());
    else r.skipType(tag & 7);
  }
}

/**
 * Throws when a length-delimited field claims more bytes than the message has
 * left. protobufjs reads such a string short instead of failing, so a cut-off
 * request would decode with, say, a type URL cut in half (on ADS: a type the
 * hub does not serve, silently ignored). A message cut at a field boundary is a
 * valid, shorter message and is judged by its content.
 */
function checkFraming(bytes: Uint8Array): void {
  const r = protobuf.Reader.create(bytes);
  while (r.pos < r.len) {
    const tag = r.uint32();
    if ((tag & 7) === 2) {
      const length = r.uint32();
      if (r.pos + length > r.len)
        throw new RangeError(
          `field ${tag >>> 3} claims ${length} bytes, ${r.len - r.pos} left: the message is cut short`,
        );
      r.pos += length;
    } else r.skipType(tag & 7);
  }
}

// Requests are read straight from the decoded message (absent fields read as
// their defaults from its prototype; message fields as null), not through
// toObject: a plain copy of every field per request is garbage at once, and
// every ACK of every stream comes through here.
export function decodeSotwRequest(api: ApiVersion, bytes: Uint8Array): SotwRequest {
  checkFraming(bytes);
  return sotwRequestFromPlain(messageType(api, 'DiscoveryRequest').decode(bytes));
}

export function decodeDeltaRequest(api: ApiVersion, bytes: Uint8Array): DeltaRequest {
  return (Buffer.isBuffer(bytes) && deltaAck(bytes)) || decodeDeltaRequestFully(api, bytes);
}

const NO_STRINGS: readonly string[] = Object.freeze([]);
const NO_VERSIONS: ReadonlyMap<string, string> = new Map();

/**
 * The fast path of every ACK (most requests a hub reads: one per response per
 * stream): a DeltaDiscoveryRequest that carries only type_url (2) and
 * response_nonce (6), read from the bytes in one pass, without protobufjs's
 * message object, the lists and the map a full decode builds. Anything else — a
 * node, names, initial versions, error_detail (a NACK), an unknown field, a
 * field with an unexpected wire type, a cut-off length, a tag or length past
 * one or four bytes — is not an ACK for this path: undefined, and the caller
 * decodes it fully, which is what decides (and reports) such cases. The
 * answer is the full decode's (a test fuzzes both), with shared, empty, frozen
 * lists: the rules never change a request. Both versions number these fields alike.
 */
function deltaAck(buf: Buffer): DeltaRequest | undefined {
  let typeUrl = '';
  let responseNonce = '';
  let pos = 0;
  const end = buf.length;
  while (pos < end) {
    const tag = buf[pos++]!;
    if (tag !== 0x12 && tag !== 0x32) return undefined; // field 2 or 6, length-delimited, in one byte
    let len = 0;
    let shift = 0;
    for (;;) {
      if (pos >= end || shift > 21) return undefined;
      const b = buf[pos++]!;
      len |= (b & 0x7f) << shift;
      if (b < 0x80) break;
      shift += 7;
    }
    if (len > end - pos) return undefined;
    // Last one wins, as in a full decode of a repeated scalar field.
    const value = buf.toString('utf8', pos, pos + len);
    if (tag === 0x12) typeUrl = value;
    else responseNonce = value;
    pos += len;
  }
  return {
    node: undefined,
    typeUrl,
    subscribe: NO_STRINGS,
    unsubscribe: NO_STRINGS,
    initialVersions: NO_VERSIONS,
    responseNonce,
    errorDetail: undefined,
  };
}

/** Every field, through protobufjs (exported for the test that holds the fast path to it). */
export function decodeDeltaRequestFully(api: ApiVersion, bytes: Uint8Array): DeltaRequest {
  checkFraming(bytes);
  const o: Plain = messageType(api, 'DeltaDiscoveryRequest').decode(bytes);
  return {
    node: nodeOf(o.node),
    typeUrl: String(o.typeUrl ?? ''),
    subscribe: (o.resourceNamesSubscribe ?? []).map(String),
    unsubscribe: (o.resourceNamesUnsubscribe ?? []).map(String),
    initialVersions: new Map(Object.entries((o.initialResourceVersions ?? {}) as Record<string, string>)),
    responseNonce: String(o.responseNonce ?? ''),
    errorDetail: errorOf(o.errorDetail),
  };
}

/** Plain (camelCase) request objects for test clients and REST, encoded with the same types. */
export function encodeRequest(
  api: ApiVersion,
  kind: 'DiscoveryRequest' | 'DeltaDiscoveryRequest',
  plain: Plain,
): Buffer {
  const t = messageType(api, kind);
  return Buffer.from(t.encode(t.fromObject(plain)).finish());
}

export function decodeResponse(
  api: ApiVersion,
  kind: 'DiscoveryResponse' | 'DeltaDiscoveryResponse',
  bytes: Uint8Array,
): Plain {
  const t = messageType(api, kind);
  return t.toObject(t.decode(bytes), TO_OBJECT);
}

// ---- framing -------------------------------------------------------------

/**
 * Per resource, per type URL: the Any, and the Resource wrappers by (ttl, body).
 * Weak, so old contents go with their resource. Keys are the interned type URL
 * strings and numbers, not built strings: this runs once per resource per
 * stream per push.
 */
interface Wraps {
  any: Uint8Array | undefined;
  wrapped: Map<number, Uint8Array>;
}
const wrapCache = new WeakMap<XdsResource, Map<string, Wraps>>();

function wrapsOf(res: XdsResource, typeUrl: string): Wraps {
  let byUrl = wrapCache.get(res);
  if (!byUrl) wrapCache.set(res, (byUrl = new Map()));
  let w = byUrl.get(typeUrl);
  if (!w) byUrl.set(typeUrl, (w = { any: undefined, wrapped: new Map() }));
  return w;
}

/** google.protobuf.Any{type_url = 1, value = 2} around the shared bytes. */
export function anyOf(res: XdsResource, typeUrl: string): Uint8Array {
  const w = wrapsOf(res, typeUrl);
  return (w.any ??= protobuf.Writer.create().uint32(10).string(typeUrl).uint32(18).bytes(res.encoded).finish());
}

function duration(w: protobuf.Writer, ms: number): void {
  const seconds = Math.floor(ms / 1000);
  const nanos = (ms % 1000) * 1_000_000;
  const d = protobuf.Writer.create();
  if (seconds) d.uint32(8).int64(seconds);
  if (nanos) d.uint32(16).int32(nanos);
  w.uint32(50).bytes(d.finish()); // Resource.ttl = 6
}

/**
 * The version a client sees. With a TTL it carries the TTL too, so a client
 * that reconnects after the TTL setting changed does not match its held
 * version and gets the resource again with the new (or no) TTL (X-TTL-4),
 * while equal settings still give equal versions on every hub (X-DELTA-2).
 */
export function wireVersion(res: XdsResource, ttlMs: number): string {
  return ttlMs > 0 ? `${res.version}/ttl${ttlMs}` : res.version;
}

/**
 * envoy.service.discovery.v3.Resource{version = 1, resource = 2, name = 3, ttl = 6}.
 * `body: false` is a heartbeat (X-TTL-2). ttlMs 0 leaves ttl out (X-TTL-4: resend without one).
 */
function resourceWrapper(res: XdsResource, typeUrl: string, ttlMs: number, body: boolean): Uint8Array {
  const cache = wrapsOf(res, typeUrl).wrapped;
  const key = ttlMs * 2 + (body ? 1 : 0);
  let bytes = cache.get(key);
  if (!bytes) {
    const w = protobuf.Writer.create().uint32(10).string(wireVersion(res, ttlMs));
    if (body) w.uint32(18).bytes(anyOf(res, typeUrl));
    w.uint32(26).string(res.name);
    if (ttlMs > 0) duration(w, ttlMs);
    cache.set(key, (bytes = w.finish()));
  }
  return bytes;
}

export type SotwItem =
  | { res: XdsResource; wrap: false }
  | { res: XdsResource; wrap: true; ttlMs: number; body: boolean };

/** DiscoveryResponse without its nonce. */
export function sotwBody(versionInfo: string, typeUrl: string, items: readonly SotwItem[]): Uint8Array {
  const w = protobuf.Writer.create().uint32(10).string(versionInfo);
  for (const it of items) {
    if (!it.wrap) w.uint32(18).bytes(anyOf(it.res, typeUrl));
    else {
      // X-TTL-3: the Resource wrapper travels as an Any inside resources.
      const inner = resourceWrapper(it.res, typeUrl, it.ttlMs, it.body);
      w.uint32(18).bytes(protobuf.Writer.create().uint32(10).string(TypeUrl.Resource).uint32(18).bytes(inner).finish());
    }
  }
  w.uint32(34).string(typeUrl);
  return w.finish();
}

export interface DeltaItem {
  res: XdsResource;
  ttlMs: number;
  body: boolean;
}

/** DeltaDiscoveryResponse without its nonce. */
export function deltaBody(
  systemVersion: string,
  typeUrl: string,
  items: readonly DeltaItem[],
  removed: readonly string[],
): Uint8Array {
  const w = protobuf.Writer.create();
  if (systemVersion !== '') w.uint32(10).string(systemVersion);
  for (const it of items) w.uint32(18).bytes(resourceWrapper(it.res, typeUrl, it.ttlMs, it.body));
  w.uint32(34).string(typeUrl);
  for (const name of removed) w.uint32(50).string(name);
  return w.finish();
}

/** One stream's response: a shared body and this stream's nonce, joined only when grpc-js serializes it. */
export interface NoncedBody {
  readonly body: Uint8Array;
  readonly nonce: string;
}

/** What an xDS method writes: a finished message (unary Fetch), or a shared body and a nonce. */
export type XdsResponse = Buffer | NoncedBody;

let scratch = Buffer.allocUnsafeSlow(64 * 1024);

/**
 * The xDS methods' response serializer. A NoncedBody is joined in a buffer
 * reused by every call, not a new one per stream: grpc-js copies what the
 * serializer returns into its own length-prefixed frame before returning from
 * `serializeMessage`, so the bytes are never read after the next call. On an
 * initial sync (S clusters to N Envoys) this saves one copy of every large
 * response; the allocator gets half the churn (docs/xds-transport.md).
 */
export function serializeResponse(m: XdsResponse): Buffer {
  if (Buffer.isBuffer(m)) return m;
  const { body, nonce } = m;
  const n = Buffer.byteLength(nonce);
  if (n > 127) throw new RangeError('nonce longer than 127 bytes');
  const size = body.length + 2 + n;
  if (size > scratch.length) scratch = Buffer.allocUnsafeSlow(Math.max(size, scratch.length * 2));
  const out = scratch.subarray(0, size);
  out.set(body, 0);
  out[body.length] = 42; // field 5, length-delimited
  out[body.length + 1] = n;
  out.write(nonce, body.length + 2, 'latin1');
  return out;
}
