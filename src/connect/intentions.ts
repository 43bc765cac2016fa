// Intentions as Consul evaluates them (docs/mesh.md "Intentions"): every
// service-intentions config entry names a destination (or `*`) and lists its
// sources (a service name or `*`), each with an Action or with L7 Permissions.
// For a (source, destination) pair the most precise intention wins:
//
//   exact destination, exact source      precedence 9
//   exact destination, `*` source        precedence 8
//   `*` destination,   exact source      precedence 6
//   `*` destination,   `*` source        precedence 5
//
// and no intention means the default (allow or deny). An intention with
// Permissions is decided per request: the first permission that matches
// decides; when none does, the default applies. Pure functions over entries.
import type { ConfigEntry } from '../catalog/types';

export type IntentionAction = 'allow' | 'deny';

/** One L7 permission: an HTTP match and what it decides. */
export interface HttpPermission {
  action: IntentionAction;
  /** Consul's IntentionHTTPPermission (PathExact/PathPrefix/PathRegex, Header[], Methods[]). */
  http: Record<string, unknown>;
}

/** What an intention decides: the whole connection, or each request by its permissions. */
export type Rule = { kind: 'allow' } | { kind: 'deny' } | { kind: 'l7'; permissions: readonly HttpPermission[] };

/** One source of one entry, with where it stands. */
export interface Intention {
  source: string;
  destination: string;
  precedence: number;
  rule: Rule;
  /** The source object as stored in the entry (Description, LegacyID, LegacyMeta, …). */
  raw: Record<string, unknown>;
  entry: ConfigEntry;
}

/** The default as a rule. */
export const ruleOf = (action: IntentionAction): Rule => ({ kind: action });

export function precedenceOf(source: string, destination: string): number {
  return destination === '*' ? (source === '*' ? 5 : 6) : source === '*' ? 8 : 9;
}

function ruleFrom(src: Record<string, unknown>): Rule {
  const perms = Array.isArray(src['Permissions']) ? (src['Permissions'] as unknown[]) : [];
  if (perms.length > 0) {
    return {
      kind: 'l7',
      permissions: perms.map((p) => {
        const o = (p ?? {}) as Record<string, unknown>;
        return {
          action: o['Action'] === 'allow' ? 'allow' : 'deny',
          http: (o['HTTP'] ?? {}) as Record<string, unknown>,
        };
      }),
    };
  }
  return { kind: src['Action'] === 'allow' ? 'allow' : 'deny' };
}

/** Every intention of the entries, most precise first (then destination, then source, by name). */
export function allIntentions(entries: readonly ConfigEntry[]): Intention[] {
  const out: Intention[] = [];
  for (const entry of entries) {
    if (entry.Kind !== 'service-intentions') continue;
    for (const raw of Array.isArray(entry['Sources']) ? (entry['Sources'] as Record<string, unknown>[]) : []) {
      const source = typeof raw?.['Name'] === 'string' ? (raw['Name'] as string) : '';
      if (source === '') continue;
      out.push({
        source,
        destination: entry.Name,
        precedence: precedenceOf(source, entry.Name),
        rule: ruleFrom(raw),
        raw,
        entry,
      });
    }
  }
  return out.sort(
    (a, b) => b.precedence - a.precedence || cmp(a.destination, b.destination) || cmp(a.source, b.source),
  );
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The intention that decides traffic from `source` to `destination`, if any. */
export function matchIntention(
  intentions: readonly Intention[],
  source: string,
  destination: string,
): Intention | undefined {
  // Sorted most precise first: the first that covers the pair wins.
  return intentions.find(
    (i) => (i.destination === destination || i.destination === '*') && (i.source === source || i.source === '*'),
  );
}

/**
 * What a destination's sidecar enforces: a rule for each source named by an
 * intention that covers the destination, and one for every other source.
 */
export interface DestinationPolicy {
  named: ReadonlyMap<string, Rule>;
  others: Rule;
}

export function destinationPolicy(
  intentions: readonly Intention[],
  destination: string,
  fallback: IntentionAction,
): DestinationPolicy {
  const covering = intentions.filter((i) => i.destination === destination || i.destination === '*');
  const named = new Map<string, Rule>();
  for (const i of covering) {
    if (i.source === '*' || named.has(i.source)) continue;
    named.set(i.source, matchIntention(covering, i.source, destination)!.rule);
  }
  const wildcard = covering.find((i) => i.source === '*');
  return {
    named: new Map([...named].sort(([a], [b]) => cmp(a, b))),
    others: wildcard ? wildcard.rule : ruleOf(fallback),
  };
}

/**
 * Consul's intention check for a connection (no request to look at): allowed
 * by an L4 allow, refused by an L4 deny, refused by an L7 intention (its
 * permissions need a request), else the default.
 */
export function checkConnection(
  intentions: readonly Intention[],
  source: string,
  destination: string,
  fallback: IntentionAction,
): { allowed: boolean; reason: string; intention?: Intention } {
  const m = matchIntention(intentions, source, destination);
  if (!m) return { allowed: fallback === 'allow', reason: 'Default intention policy' };
  if (m.rule.kind === 'l7')
    return {
      allowed: false,
      reason: `Matched L7 intention: ${m.source} => ${m.destination} (${m.precedence})`,
      intention: m,
    };
  return {
    allowed: m.rule.kind === 'allow',
    reason: `Matched L4 intention: ${m.source} => ${m.destination} (${m.precedence})`,
    intention: m,
  };
}

/** The default intention: the mesh entry's DefaultIntentionPolicy when set (an xdshub extension), else the hub's flag. */
export function defaultIntention(mesh: ConfigEntry | undefined, flag: IntentionAction): IntentionAction {
  const v = mesh?.['DefaultIntentionPolicy'];
  return v === 'allow' || v === 'deny' ? v : flag;
}
