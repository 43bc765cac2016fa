// A service's ClusterLoadAssignment kept up to date per changed instance, for
// the assignments with one priority (no failover targets), which is every
// service's unless a service-resolver adds failover. buildLoadAssignment
// (endpoints.ts) makes the same message from scratch; this gives the same bytes,
// so the same version (a content hash, equal on every hub), without walking
// every instance on each flush: a flush that touched one instance of a
// 10,000-instance service re-encoded all of them and hashed their JSON, which
// was a quarter of the hub's CPU per write (bench/NOTES.md, "Where a spawned hub's
// CPU per write goes").
//
// How: each endpoint's LbEndpoint is encoded once (per frozen instance object);
// a locality keeps its endpoints in the views' order in chunks whose encoded
// bytes are cached, and a change re-frames only the chunk it lands in. The
// message is then the concatenation of cached parts — protobuf encodes a
// message's fields in field-number order and a repeated message field as one
// tag-and-length-prefixed record per element, so the parts concatenated are the
// bytes protobufjs makes for the whole message (test/xds/translate/incremental.property.test.ts
// compares them). Duplicate addresses: the first instance in the views' order
// wins, as in buildLoadAssignment; the others wait behind it.
import * as protobuf from 'protobufjs';
import type { CheckServiceNode } from '../../catalog/types';
import { encodeResource } from '../transport/envoy-proto';
import type { XdsResource } from '../transport/provider';
import { TypeUrl } from '../transport/type-urls';
import { versionOf } from './encode';
import { byNodeThenId, memoEndpointOf, type PlainEndpoint } from './endpoints';
import { diffInstances, type Instances, NO_INSTANCES } from './instance-diff';

export interface LiveAssignment {
  /**
   * The assignment of these instances (in the health views' order: node name, then
   * service ID), built from the changes since the last call; the previous object
   * when its bytes did not change.
   */
  update(instances: Instances): XdsResource;
  /** How many times the message was assembled and hashed (a change of its parts). */
  readonly encodes: number;
}

interface Claim {
  csn: CheckServiceNode;
  ep: PlainEndpoint;
}

interface Chunk {
  items: Claim[];
  /** The framed LbEndpoints of `items`, concatenated; undefined after a change. */
  bytes: Uint8Array | undefined;
}

interface Locality {
  region: string;
  zone: string;
  /** The encoded `locality` field (field 1 of LocalityLbEndpoints). */
  head: Uint8Array;
  chunks: Chunk[];
  count: number;
  /** Sum of the weights of its HEALTHY endpoints. */
  healthyWeight: number;
}

/** Endpoints per cached chunk: small enough to re-frame on a change, large enough to keep the parts few. */
const CHUNK = 256;

const LB_ENDPOINT = 'envoy.config.endpoint.v3.LbEndpoint';
const LOCALITY_LB_ENDPOINTS = 'envoy.config.endpoint.v3.LocalityLbEndpoints';
const CLUSTER_LOAD_ASSIGNMENT = 'envoy.config.endpoint.v3.ClusterLoadAssignment';
/** Field 2, wire type 2 (length-delimited): `lb_endpoints` in LocalityLbEndpoints and `endpoints` in ClusterLoadAssignment. */
const FIELD_2 = 0x12;

/** The tag and length varint that prefix an embedded message of `length` bytes in field 2. */
function field2Prefix(length: number): Uint8Array {
  return protobuf.Writer.create().uint32(FIELD_2).uint32(length).finish();
}

const framedMemo = new WeakMap<PlainEndpoint, Uint8Array>();

/** An endpoint as one element of `lb_endpoints`: prefix and LbEndpoint bytes, once per endpoint object. */
function framed(ep: PlainEndpoint): Uint8Array {
  let bytes = framedMemo.get(ep);
  if (!bytes) {
    const body = encodeResource(LB_ENDPOINT, ep.lb);
    framedMemo.set(ep, (bytes = Buffer.concat([field2Prefix(body.length), body])));
  }
  return bytes;
}

function lowerBound(items: readonly Claim[], csn: CheckServiceNode): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (byNodeThenId(items[mid]!.csn, csn) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export interface LiveAssignmentOptions {
  keepUnhealthy: boolean;
  /** A resolver subset's filter: only the instances it selects are endpoints (it is asked about changed instances only). */
  selects?: (csn: CheckServiceNode) => boolean;
  /** Endpoints per cached chunk (tests pass a small one so that chunks split and empty). */
  chunk?: number;
}

/** What one live assignment keeps between updates. */
interface State {
  readonly name: string;
  readonly keepUnhealthy: boolean;
  readonly selects: ((csn: CheckServiceNode) => boolean) | undefined;
  readonly size: number;
  previous: Instances;
  resource: XdsResource | undefined;
  /** address:port → the instance that is its endpoint (the first in the views' order) and the others that have it. */
  readonly claimants: Map<string, { winner: Claim; others: Map<CheckServiceNode, Claim> }>;
  readonly localities: Map<string, Locality>;
  readonly header: Uint8Array;
  dirty: boolean;
  encodes: number;
}

export function createLiveAssignment(name: string, options: LiveAssignmentOptions): LiveAssignment {
  const { keepUnhealthy, selects, chunk: size = CHUNK } = options;
  const s: State = {
    name,
    keepUnhealthy,
    selects,
    size,
    previous: NO_INSTANCES,
    resource: undefined,
    claimants: new Map(),
    localities: new Map(),
    header: encodeResource(CLUSTER_LOAD_ASSIGNMENT, { cluster_name: name }),
    dirty: true,
    encodes: 0,
  };
  return {
    update(instances) {
      if (instances !== s.previous) {
        const { removed, added } = diffInstances(s.previous, instances);
        for (const csn of removed) remove(s, csn);
        for (const csn of added) add(s, csn);
        s.previous = instances;
      }
      if (s.dirty || !s.resource) {
        s.encodes++;
        s.resource = encode(s);
        s.dirty = false;
      }
      return s.resource;
    },
    get encodes() {
      return s.encodes;
    },
  };
}

/** The endpoint of an instance, or undefined when it is left out (or the subset does not select it). */
function endpointOf(s: State, csn: CheckServiceNode): PlainEndpoint | undefined {
  return s.selects && !s.selects(csn) ? undefined : memoEndpointOf(csn, s.keepUnhealthy);
}

/** The chunk of `loc` that holds (or would hold) `csn`. */
function chunkFor(loc: Locality, csn: CheckServiceNode): Chunk {
  let lo = 0;
  let hi = loc.chunks.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const items = loc.chunks[mid]!.items;
    if (byNodeThenId(items[items.length - 1]!.csn, csn) < 0) lo = mid + 1;
    else hi = mid;
  }
  return loc.chunks[lo]!;
}

function place(s: State, claim: Claim): void {
  const { ep } = claim;
  let loc = s.localities.get(ep.localityKey);
  if (!loc) {
    const head = encodeResource(LOCALITY_LB_ENDPOINTS, { locality: { region: ep.region, zone: ep.zone } });
    s.localities.set(
      ep.localityKey,
      (loc = { region: ep.region, zone: ep.zone, head, chunks: [], count: 0, healthyWeight: 0 }),
    );
  }
  if (loc.chunks.length === 0) loc.chunks.push({ items: [claim], bytes: undefined });
  else {
    const chunk = chunkFor(loc, claim.csn);
    chunk.items.splice(lowerBound(chunk.items, claim.csn), 0, claim);
    chunk.bytes = undefined;
    if (chunk.items.length >= 2 * s.size) {
      const at = loc.chunks.indexOf(chunk);
      loc.chunks.splice(at + 1, 0, { items: chunk.items.splice(s.size), bytes: undefined });
    }
  }
  loc.count++;
  if (ep.lb['health_status'] === 'HEALTHY') loc.healthyWeight += ep.weight;
  s.dirty = true;
}

function unplace(s: State, claim: Claim): void {
  const { ep } = claim;
  const loc = s.localities.get(ep.localityKey)!;
  const chunk = chunkFor(loc, claim.csn);
  const at = chunk.items.indexOf(claim, lowerBound(chunk.items, claim.csn));
  chunk.items.splice(at, 1);
  chunk.bytes = undefined;
  if (chunk.items.length === 0) loc.chunks.splice(loc.chunks.indexOf(chunk), 1);
  loc.count--;
  if (ep.lb['health_status'] === 'HEALTHY') loc.healthyWeight -= ep.weight;
  if (loc.count === 0) s.localities.delete(ep.localityKey);
  s.dirty = true;
}

function add(s: State, csn: CheckServiceNode): void {
  const ep = endpointOf(s, csn);
  if (!ep) return;
  const claim: Claim = { csn, ep };
  const address = s.claimants.get(ep.key);
  if (!address) {
    s.claimants.set(ep.key, { winner: claim, others: new Map() });
    place(s, claim);
    return;
  }
  // A duplicate address: the first in the views' order is the endpoint.
  if (byNodeThenId(csn, address.winner.csn) < 0) {
    unplace(s, address.winner);
    address.others.set(address.winner.csn, address.winner);
    address.winner = claim;
    place(s, claim);
  } else address.others.set(csn, claim);
}

function remove(s: State, csn: CheckServiceNode): void {
  const ep = endpointOf(s, csn);
  if (!ep) return;
  const address = s.claimants.get(ep.key)!;
  if (address.winner.csn !== csn) {
    address.others.delete(csn);
    return;
  }
  unplace(s, address.winner);
  // The next in order takes the address: a scan of the others, only when the endpoint itself leaves.
  let next: Claim | undefined;
  for (const c of address.others.values()) if (!next || byNodeThenId(c.csn, next.csn) < 0) next = c;
  if (!next) {
    s.claimants.delete(ep.key);
    return;
  }
  address.others.delete(next.csn);
  address.winner = next;
  place(s, next);
}

function encode(s: State): XdsResource {
  const parts: Uint8Array[] = [s.header];
  // Localities in (region, zone) order, as buildLoadAssignment sorts them; all at priority 0.
  for (const key of [...s.localities.keys()].sort()) {
    const loc = s.localities.get(key)!;
    const tail = encodeResource(LOCALITY_LB_ENDPOINTS, {
      load_balancing_weight: { value: Math.min(Math.max(loc.healthyWeight, 1), 0xffff_ffff) },
      priority: 0,
    });
    let length = loc.head.length + tail.length;
    for (const chunk of loc.chunks) {
      chunk.bytes ??= Buffer.concat(chunk.items.map((c) => framed(c.ep)));
      length += chunk.bytes.length;
    }
    parts.push(field2Prefix(length), loc.head, ...loc.chunks.map((c) => c.bytes!), tail);
  }
  const encoded = Buffer.concat(parts);
  const version = versionOf(encoded);
  if (s.resource?.version === version) return s.resource;
  return Object.freeze({ name: s.name, typeUrl: TypeUrl.ClusterLoadAssignment, version, encoded });
}
