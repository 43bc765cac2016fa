// XA0007: a service-router route that can never match, because an earlier
// route matches every request it would (Envoy takes the first route that
// matches). Conservative: "covers" is only claimed when it is certain — a path
// that contains the other's, a subset of the other's header and query
// conditions, a superset of its methods. Regexes cover only the same regex.
import { list, record, str } from '../../xds/translate/inputs';
import { type Finding, finding } from './codes';
import { entryId, type Json, routerMatches } from './fields';

interface Path {
  kind: 'any' | 'exact' | 'prefix' | 'regex';
  value: string;
  caseInsensitive: boolean;
}

function pathOf(http: Json | undefined): Path {
  const ci = http?.['CaseInsensitive'] === true;
  const exact = str(http?.['PathExact']);
  if (exact !== undefined) return { kind: 'exact', value: exact, caseInsensitive: ci };
  const prefix = str(http?.['PathPrefix']);
  if (prefix !== undefined && prefix !== '/') return { kind: 'prefix', value: prefix, caseInsensitive: ci };
  const regex = str(http?.['PathRegex']);
  if (regex !== undefined) return { kind: 'regex', value: regex, caseInsensitive: ci };
  // No path, or prefix "/": every request path.
  return { kind: 'any', value: '', caseInsensitive: true };
}

function pathCovers(a: Path, b: Path): boolean {
  if (a.kind === 'any') return true;
  if (b.kind === 'any') return false;
  // A case-sensitive match never covers a case-insensitive one (it takes more spellings).
  if (!a.caseInsensitive && b.caseInsensitive) return false;
  const fold = (s: string) => (a.caseInsensitive ? s.toLowerCase() : s);
  const literal = b.kind === 'exact' || b.kind === 'prefix';
  if (a.kind === 'prefix') return literal && fold(b.value).startsWith(fold(a.value));
  if (a.kind === 'exact') return b.kind === 'exact' && fold(b.value) === fold(a.value);
  return b.kind === 'regex' && b.value === a.value && b.caseInsensitive === a.caseInsensitive;
}

/** Conditions as comparable text: each header or query matcher with its keys sorted. */
function conditions(http: Json | undefined, key: string): Set<string> {
  const canonical = (o: Json) =>
    JSON.stringify(
      Object.keys(o)
        .sort()
        .map((k) => [k, o[k]]),
    );
  return new Set(
    list(http?.[key])
      .map((c) => record(c))
      .filter((c): c is Json => c !== undefined)
      .map(canonical),
  );
}

function methods(http: Json | undefined): Set<string> | undefined {
  const m = list(http?.['Methods']).filter((x): x is string => typeof x === 'string' && x !== '');
  return m.length === 0 ? undefined : new Set(m);
}

/** Does every request route `b` matches also match `a`? */
export function covers(a: Json | undefined, b: Json | undefined): boolean {
  if (!pathCovers(pathOf(a), pathOf(b))) return false;
  for (const key of ['Header', 'QueryParam']) {
    const bConds = conditions(b, key);
    for (const c of conditions(a, key)) if (!bConds.has(c)) return false;
  }
  const am = methods(a);
  const bm = methods(b);
  if (am === undefined) return true;
  return bm !== undefined && [...bm].every((m) => am.has(m));
}

export function checkShadowedRoutes(e: Json): Finding[] {
  if (e['Kind'] !== 'service-router') return [];
  const routes = routerMatches(e);
  const out: Finding[] = [];
  routes.forEach((r, i) => {
    const earlier = routes.slice(0, i).findIndex((p) => covers(p.http?.value, r.http?.value));
    if (earlier >= 0) {
      const by = `route ${earlier} (${routes[earlier]!.route.field})`;
      const what = `route ${i} can never match: ${by} matches every request it would`;
      out.push(finding('XA0007', entryId(e), `${r.route.field}.Match`, what));
    }
  });
  return out;
}
