// The policy engine: a token's policies merged into one Authorizer. Consul's
// rules: for a named resource an exact rule wins over prefix rules, the longest
// matching prefix wins among those, and rules on the same name from several
// policies merge with deny > write > read. What no rule covers falls to the
// default policy (allow: everything but ACL management; deny: nothing).
import { emptyRules, stronger } from './rules';
import type { Access, NamedRules, PolicyRules } from './types';

export type Level = 'read' | 'write';
/** The resources a check names; the scalar ones (operator, mesh, acl, ...) take no name. */
export type NamedResource = 'service' | 'node' | 'agent' | 'intention' | 'key' | 'session';
export type ScalarResource = 'operator' | 'mesh' | 'acl' | 'peering' | 'keyring';
export type Resource = NamedResource | ScalarResource;

export interface Authorizer {
  /** The token behind the decisions: its AccessorID ('' when ACLs are off). */
  readonly accessorId: string;
  /** True for the anonymous token (no token presented). */
  readonly anonymous: boolean;
  /** True when every check passes (ACLs off, or a management token). */
  readonly allowsAll: boolean;
  allowed(resource: Resource, level: Level, name?: string): boolean;
}

type Decision = Access | undefined;

function grants(access: Decision, level: Level): boolean | undefined {
  if (access === undefined) return undefined;
  if (access === 'deny') return false;
  return level === 'read' || access === 'write';
}

/** A named rule set: exact names plus prefixes longest first. */
interface Lookup {
  exact: Map<string, Access | 'list'>;
  prefixes: Array<[string, Access | 'list']>;
}

function lookupOf(exact: NamedRules, prefix: NamedRules): Lookup {
  return {
    exact: new Map(Object.entries(exact)),
    prefixes: Object.entries(prefix).sort((a, b) => b[0].length - a[0].length),
  };
}

function find(lookup: Lookup, name: string): Decision {
  const hit = lookup.exact.get(name);
  if (hit !== undefined) return hit === 'list' ? 'read' : hit;
  for (const [prefix, access] of lookup.prefixes)
    if (name.startsWith(prefix)) return access === 'list' ? 'read' : access;
  return undefined;
}

function mergeNamed(into: NamedRules, from: NamedRules): void {
  for (const [name, access] of Object.entries(from)) into[name] = stronger(into[name], access);
}

/** Several policies' rules as one: the same name merges to its strongest rule. */
export function mergeRules(all: readonly PolicyRules[]): PolicyRules {
  const out = emptyRules();
  for (const r of all) {
    for (const k of ['acl', 'operator', 'mesh', 'peering', 'keyring'] as const) {
      const v = r[k];
      if (v !== undefined) out[k] = stronger(out[k], v);
    }
    for (const k of [
      'service',
      'service_prefix',
      'intentions',
      'intentions_prefix',
      'node',
      'node_prefix',
      'agent',
      'agent_prefix',
    ] as const) {
      mergeNamed(out[k], r[k]);
    }
    for (const [kind, rules] of Object.entries(r.other)) mergeNamed((out.other[kind] ??= {}), rules);
  }
  return out;
}

/** An intention rule falls back to its service rule's level: deny stays deny, read or write gives read (Consul's). */
function intentionsFallback(rules: NamedRules): NamedRules {
  const out: NamedRules = {};
  for (const [name, access] of Object.entries(rules)) out[name] = access === 'deny' ? 'deny' : 'read';
  return out;
}

const CACHE_LIMIT = 10_000;

export interface AuthorizerOptions {
  accessorId: string;
  anonymous?: boolean;
  defaultPolicy: 'allow' | 'deny';
  /** The management policy is linked: everything is allowed. */
  management?: boolean;
}

export function createAuthorizer(rules: PolicyRules, options: AuthorizerOptions): Authorizer {
  const { accessorId, defaultPolicy } = options;
  const anonymous = options.anonymous ?? false;
  if (options.management) return allowAll(accessorId, anonymous);
  const named: Record<NamedResource, Lookup> = {
    service: lookupOf(rules.service, rules.service_prefix),
    node: lookupOf(rules.node, rules.node_prefix),
    agent: lookupOf(rules.agent, rules.agent_prefix),
    intention: lookupOf(
      { ...intentionsFallback(rules.service), ...rules.intentions },
      { ...intentionsFallback(rules.service_prefix), ...rules.intentions_prefix },
    ),
    // KV and sessions (docs/kv.md): `list` reads as read (Consul's default, without acl.enable_key_list_policy).
    key: lookupOf(rules.other['key'] ?? {}, rules.other['key_prefix'] ?? {}),
    session: lookupOf(rules.other['session'] ?? {}, rules.other['session_prefix'] ?? {}),
  };
  const mesh = rules.mesh ?? rules.operator;
  const scalar: Record<ScalarResource, Decision> = {
    operator: rules.operator,
    mesh,
    peering: rules.peering ?? mesh,
    keyring: rules.keyring,
    acl: rules.acl,
  };
  // Named decisions repeat (every event of a service asks the same question): cache them.
  const cache = new Map<string, boolean>();
  const fallback = (resource: Resource) => defaultPolicy === 'allow' && resource !== 'acl';
  return {
    accessorId,
    anonymous,
    allowsAll: false,
    allowed(resource, level, name = '') {
      if (resource in scalar) return grants(scalar[resource as ScalarResource], level) ?? fallback(resource);
      const key = `${resource}\u0000${level}\u0000${name}`;
      let hit = cache.get(key);
      if (hit === undefined) {
        hit = grants(find(named[resource as NamedResource], name), level) ?? fallback(resource);
        if (cache.size >= CACHE_LIMIT) cache.clear();
        cache.set(key, hit);
      }
      return hit;
    },
  };
}

export function allowAll(accessorId = '', anonymous = false): Authorizer {
  return { accessorId, anonymous, allowsAll: true, allowed: () => true };
}
