// Validators for the discovery-chain kinds Consul routes L7 traffic with:
// service-router (matches → destinations) and service-splitter (weighted
// splits). The rules are Consul's: one path match per route, a prefix rewrite
// only after a path match, valid methods and retry conditions, split weights
// between 0 and 100 that add up to 100.
import { invalid } from '../../errors';
import type { Body } from '../body';
import { regexField } from './re2';

const METHODS = ['CONNECT', 'DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT', 'TRACE'];
/** Envoy's retry conditions that Consul's RetryOn accepts. */
export const RETRY_ON = [
  '5xx',
  'gateway-error',
  'reset',
  'connect-failure',
  'envoy-ratelimited',
  'retriable-4xx',
  'refused-stream',
  'cancelled',
  'deadline-exceeded',
  'internal',
  'resource-exhausted',
  'unavailable',
] as const;

function headerModifiers(parent: Body, name: string): void {
  const h = parent.obj(name);
  if (!h) return;
  h.strMap('Add');
  h.strMap('Set');
  h.strArray('Remove');
}

/** At most one of `names` set (non-empty / true); returns the one set, if any. */
function atMostOne(b: Body, names: readonly string[], what: string): string | undefined {
  const set = names.filter((n) => b.has(n) && b.get(n) !== '' && b.get(n) !== false);
  if (set.length > 1) throw invalid(b.field(set[1]!), `${what}: only one of ${names.join(', ')} may be set`);
  return set[0];
}

export function serviceRouter(e: Body): string[] {
  for (const route of e.objArray('Routes')) {
    const http = route.obj('Match')?.obj('HTTP');
    let pathMatch: string | undefined;
    if (http) {
      pathMatch = atMostOne(http, ['PathExact', 'PathPrefix', 'PathRegex'], 'path match');
      for (const p of ['PathExact', 'PathPrefix'] as const) {
        const v = http.str(p);
        if (v !== '' && !v.startsWith('/')) throw invalid(http.field(p), 'must start with "/"');
      }
      regexField(http, 'PathRegex');
      http.bool('CaseInsensitive');
      for (const h of http.objArray('Header')) {
        h.requiredStr('Name');
        for (const k of ['Exact', 'Prefix', 'Suffix']) h.str(k);
        regexField(h, 'Regex');
        h.bool('Present');
        h.bool('Invert');
        atMostOne(h, ['Present', 'Exact', 'Prefix', 'Suffix', 'Regex'], 'header match');
      }
      for (const q of http.objArray('QueryParam')) {
        q.requiredStr('Name');
        q.str('Exact');
        regexField(q, 'Regex');
        q.bool('Present');
        atMostOne(q, ['Present', 'Exact', 'Regex'], 'query match');
      }
      const methods = http.strArray('Methods');
      const seen = new Set<string>();
      for (const m of methods) {
        if (!METHODS.includes(m)) throw invalid(http.field('Methods'), `"${m}" is not an HTTP method`);
        if (seen.has(m)) throw invalid(http.field('Methods'), `"${m}" is listed twice`);
        seen.add(m);
      }
    }
    const d = route.obj('Destination');
    if (!d) continue;
    for (const k of ['Service', 'ServiceSubset', 'Namespace', 'Partition']) d.name(k);
    if (d.str('PrefixRewrite') !== '' && pathMatch !== 'PathExact' && pathMatch !== 'PathPrefix') {
      throw invalid(d.field('PrefixRewrite'), 'needs a PathExact or PathPrefix match');
    }
    d.duration('RequestTimeout');
    d.duration('IdleTimeout');
    d.int('NumRetries', 0, { min: 0, max: 4294967295 });
    d.bool('RetryOnConnectFailure');
    for (const r of d.strArray('RetryOn')) {
      if (!(RETRY_ON as readonly string[]).includes(r))
        throw invalid(d.field('RetryOn'), `"${r}" is not one of ${RETRY_ON.join(', ')}`);
    }
    const codes = d.get('RetryOnStatusCodes');
    if (codes !== undefined) {
      if (
        !Array.isArray(codes) ||
        codes.some((c) => typeof c !== 'number' || !Number.isInteger(c) || c < 100 || c > 599)
      ) {
        throw invalid(d.field('RetryOnStatusCodes'), 'must be a list of HTTP status codes (100–599)');
      }
    }
    headerModifiers(d, 'RequestHeaders');
    headerModifiers(d, 'ResponseHeaders');
  }
  return ['Routes'];
}

export function serviceSplitter(e: Body): string[] {
  const splits = e.objArray('Splits');
  if (splits.length === 0) throw invalid(e.field('Splits'), 'needs at least one split');
  let total = 0;
  const seen = new Set<string>();
  for (const s of splits) {
    const w = s.get('Weight');
    if (typeof w !== 'number' || !Number.isFinite(w) || w < 0 || w > 100)
      throw invalid(s.field('Weight'), `must be a number from 0 to 100, got ${JSON.stringify(w)}`);
    total += w;
    const key = `${s.name('Service')}/${s.name('ServiceSubset')}/${s.name('Namespace')}/${s.name('Partition')}`;
    if (seen.has(key)) throw invalid(s.field('Service'), 'the same service and subset appear in two splits');
    seen.add(key);
    headerModifiers(s, 'RequestHeaders');
    headerModifiers(s, 'ResponseHeaders');
  }
  // Consul keeps two decimals of each weight (1/10,000 of the traffic) and wants exactly 100.
  if (Math.round(total * 100) !== 10_000) throw invalid(e.field('Splits'), `weights must add up to 100, got ${total}`);
  return ['Splits'];
}
