// The JSON paths at which the hub's answer differs from a real Consul's, as the
// two oracle tests compare them (consul-oracle.int.test.ts for the HTTP API,
// consul-xds-oracle.int.test.ts for a sidecar's Envoy config). Members of lists
// are matched by identity and written `[*]`; keys only one side has are one
// path, `path.{a,b} (hub lacks)` or `(hub only)` (docs/consul-differences.md).

export interface DiffRules {
  /** A list member's identity, so lists compare by member; undefined: the list compares whole. */
  identity(item: unknown): string | undefined;
  /** Objects that are maps from IDs to members (compared as lists of their values). */
  isIdMap?(value: Record<string, unknown>): boolean;
  /** Lists of equal length whose members have no identity compare member by member, `[0]`, `[1]`, …. */
  positional?: boolean;
}

export function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

function keyed(list: unknown[], rules: DiffRules): Map<string, unknown> | undefined {
  const map = new Map<string, unknown>();
  for (const item of list) {
    const id = rules.identity(item);
    if (id === undefined || map.has(id)) return undefined;
    map.set(id, item);
  }
  return map;
}

/** Keys one side lacks, as one path: `path.{a,b} (hub lacks)`. */
function missing(path: string, keys: string[], side: string, out: string[]): void {
  if (keys.length === 0) return;
  out.push(`${path}.${keys.length === 1 ? keys[0] : `{${keys.join(',')}}`} (${side})`);
}

function diffObjects(
  h: Record<string, unknown>,
  o: Record<string, unknown>,
  path: string,
  out: string[],
  rules: DiffRules,
): void {
  const keys = [...new Set([...Object.keys(o), ...Object.keys(h)])];
  missing(
    path,
    keys.filter((k) => !(k in h)),
    'hub lacks',
    out,
  );
  missing(
    path,
    keys.filter((k) => !(k in o)),
    'hub only',
    out,
  );
  for (const k of keys) if (k in h && k in o) diffJson(h[k], o[k], `${path}.${k}`, out, rules);
}

/** Appends to `out` every path at which `hubValue` differs from `oracle`. */
export function diffJson(hubValue: unknown, oracle: unknown, path: string, out: string[], rules: DiffRules): void {
  if (same(hubValue, oracle)) return;
  if (isObject(hubValue) && isObject(oracle)) {
    if (rules.isIdMap?.(hubValue) && rules.isIdMap(oracle))
      return diffJson(Object.values(hubValue), Object.values(oracle), path, out, rules);
    return diffObjects(hubValue, oracle, path, out, rules);
  }
  if (Array.isArray(hubValue) && Array.isArray(oracle)) {
    const h = keyed(hubValue, rules);
    const o = keyed(oracle, rules);
    if (h && o) {
      const ids = [...new Set([...o.keys(), ...h.keys()])];
      if (ids.some((k) => !h.has(k))) out.push(`${path}[${ids.filter((k) => !h.has(k)).join(',')}] (hub lacks)`);
      if (ids.some((k) => !o.has(k))) out.push(`${path}[${ids.filter((k) => !o.has(k)).join(',')}] (hub only)`);
      for (const k of ids) if (h.has(k) && o.has(k)) diffJson(h.get(k), o.get(k), `${path}[*]`, out, rules);
      return;
    }
    if (rules.positional && hubValue.length === oracle.length) {
      hubValue.forEach((v, i) => diffJson(v, oracle[i], `${path}[${i}]`, out, rules));
      return;
    }
  }
  out.push(path);
}
