// What a node gets from a provider (per type: name → resource), and the
// difference between two such sets: resources added, removed and changed, with
// a field-level diff of the changed resources' proto3 JSON.
import { typeOfUrl } from '../xds/transport/envoy-proto';
import { bytesToJson } from '../xds/transport/proto-json';
import type { ResourceProvider, ResourceSet, XdsNode, XdsResource } from '../xds/transport/provider';
import { RESOURCE_TYPES, type ResourceType } from '../xds/transport/resource-types';
import { coveredNames } from '../xds/transport/rules/subscription';
import type { Subscription } from '../xds/transport/stream-state';

/** The types the operator tools show. SDS secrets carry private keys (docs/mesh.md): never shown, diffed or dry-run. */
export type TypeRest = Exclude<ResourceType['rest'], 'secrets'>;
export const SHOWN_TYPES = RESOURCE_TYPES.filter((t): t is ResourceType & { rest: TypeRest } => t.rest !== 'secrets');

/** Per type (REST name): resource name → resource. */
export type NodeResources = Record<TypeRest, Map<string, XdsResource>>;

/** Per type, the subscriptions that cover what a node gets (a connected node's streams); none = everything (offline). */
export type Coverage = Partial<Record<TypeRest, readonly Subscription[]>> | undefined;

/** The four sets a provider hands a node (shared objects: cheap to take and to compare by identity). */
export type NodeSets = Record<TypeRest, ResourceSet>;

export function setsOf(provider: ResourceProvider, node: XdsNode): NodeSets {
  const out = {} as NodeSets;
  for (const t of SHOWN_TYPES) out[t.rest] = provider.get(t.typeUrl, node);
  return out;
}

/** What a node gets out of its sets: the names its subscriptions cover, or everything (offline). */
export function coveredResources(sets: NodeSets, coverage: Coverage): NodeResources {
  const out = {} as NodeResources;
  for (const t of SHOWN_TYPES)
    out[t.rest] = pick(sets[t.rest], coverage === undefined ? undefined : (coverage[t.rest] ?? []));
  return out;
}

export function resourcesOf(provider: ResourceProvider, node: XdsNode, coverage: Coverage): NodeResources {
  return coveredResources(setsOf(provider, node), coverage);
}

function pick(set: ResourceSet, subs: readonly Subscription[] | undefined): Map<string, XdsResource> {
  if (subs === undefined) return new Map(set.byName);
  const out = new Map<string, XdsResource>();
  for (const sub of subs) {
    for (const n of coveredNames(sub, set)) {
      const r = set.byName.get(n);
      if (r) out.set(n, r);
    }
  }
  return out;
}

export interface FieldChange {
  path: string;
  before?: unknown;
  after?: unknown;
}

export interface ResourceRef {
  type: TypeRest;
  name: string;
  version: string;
}

export interface ChangedResource {
  type: TypeRest;
  name: string;
  from: string;
  to: string;
  fields: FieldChange[];
}

export interface ResourceDiff {
  added: ResourceRef[];
  removed: ResourceRef[];
  changed: ChangedResource[];
}

/** A resource as proto3 JSON with `@type` (the form Envoy's config_dump prints); memoized per resource object. */
const jsonMemo = new WeakMap<XdsResource, Record<string, unknown>>();
export function resourceJson(res: XdsResource): Record<string, unknown> {
  let j = jsonMemo.get(res);
  if (!j)
    jsonMemo.set(
      res,
      (j = { '@type': res.typeUrl, ...(bytesToJson(typeOfUrl(res.typeUrl), res.encoded) as Record<string, unknown>) }),
    );
  return j;
}

/** Field-level differences between two JSON values; paths like `a.b[2].c`. */
export function jsonDiff(before: unknown, after: unknown, path = ''): FieldChange[] {
  if (Object.is(before, after)) return [];
  const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (Array.isArray(before) && Array.isArray(after)) {
    const out: FieldChange[] = [];
    for (let i = 0; i < Math.max(before.length, after.length); i++) {
      const p = `${path}[${i}]`;
      if (i >= before.length) out.push({ path: p, after: after[i] });
      else if (i >= after.length) out.push({ path: p, before: before[i] });
      else out.push(...jsonDiff(before[i], after[i], p));
    }
    return out;
  }
  if (isObj(before) && isObj(after)) {
    const out: FieldChange[] = [];
    for (const k of new Set([...Object.keys(before), ...Object.keys(after)])) {
      const p = path ? `${path}.${k}` : k;
      if (!(k in after)) out.push({ path: p, before: before[k] });
      else if (!(k in before)) out.push({ path: p, after: after[k] });
      else out.push(...jsonDiff(before[k], after[k], p));
    }
    return out;
  }
  return [{ path: path || '.', before, after }];
}

const fieldMemo = new WeakMap<XdsResource, WeakMap<XdsResource, FieldChange[]>>();
function fieldsBetween(a: XdsResource, b: XdsResource): FieldChange[] {
  let inner = fieldMemo.get(a);
  if (!inner) fieldMemo.set(a, (inner = new WeakMap()));
  let f = inner.get(b);
  if (!f) inner.set(b, (f = jsonDiff(resourceJson(a), resourceJson(b))));
  return f;
}

export function diffResources(before: NodeResources, after: NodeResources): ResourceDiff {
  const out: ResourceDiff = { added: [], removed: [], changed: [] };
  for (const t of SHOWN_TYPES) {
    const a = before[t.rest];
    const b = after[t.rest];
    for (const [name, r] of b) {
      const old = a.get(name);
      if (!old) out.added.push({ type: t.rest, name, version: r.version });
      else if (old.version !== r.version)
        out.changed.push({ type: t.rest, name, from: old.version, to: r.version, fields: fieldsBetween(old, r) });
    }
    for (const [name, r] of a) if (!b.has(name)) out.removed.push({ type: t.rest, name, version: r.version });
  }
  return out;
}

export function isEmptyDiff(d: ResourceDiff): boolean {
  return d.added.length === 0 && d.removed.length === 0 && d.changed.length === 0;
}

/** NodeResources as the admin JSON: per type, name → { version, resource }. */
export function resourcesJson(
  r: NodeResources,
): Record<string, Record<string, { version: string; resource: Record<string, unknown> }>> {
  const out: Record<string, Record<string, { version: string; resource: Record<string, unknown> }>> = {};
  for (const t of SHOWN_TYPES) {
    out[t.rest] = Object.fromEntries(
      [...r[t.rest]]
        .sort(([x], [y]) => (x < y ? -1 : 1))
        .map(([n, res]) => [n, { version: res.version, resource: resourceJson(res) }]),
    );
  }
  return out;
}
