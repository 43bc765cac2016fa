// Checks of a service-intentions entry beyond its shape (docs/mesh.md
// "Intentions"): L7 permissions as the sidecars' HTTP RBAC filter reads them,
// and what the hub does not implement (JWT, peers, sameness groups, other
// namespaces or partitions, keys the RBAC translation does not read, names a
// SPIFFE ID cannot carry) refused with the field named.
import { precedenceOf } from '../../connect/intentions';
import { meshNameProblem } from '../../connect/spiffe';
import { invalid } from '../../errors';
import type { Body } from '../body';
import { regexField } from './re2';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH'];
const HEADER_MATCHES = ['Present', 'Exact', 'Prefix', 'Suffix', 'Contains', 'Regex'];

function defaultOnly(body: Body, name: string): void {
  const v = body.name(name);
  if (v !== '' && v !== 'default') throw invalid(body.field(name), `only "default" is served by this hub, got "${v}"`);
}

/** A source's keys (Consul's SourceIntention); the Legacy* ones are what the legacy ID API stores. */
const SOURCE_KEYS = [
  'Name',
  'Peer',
  'Namespace',
  'Partition',
  'SamenessGroup',
  'Action',
  'Permissions',
  'Precedence',
  'Type',
  'Description',
  'LegacyID',
  'LegacyMeta',
  'LegacyCreateTime',
  'LegacyUpdateTime',
];

function httpPermission(http: Body): void {
  // A key the RBAC filter would not read (a typo such as "Method") would widen the permission: refused.
  http.onlyKeys(['PathExact', 'PathPrefix', 'PathRegex', 'Header', 'Methods']);
  const paths = ['PathExact', 'PathPrefix', 'PathRegex'].filter((p) => http.str(p) !== '');
  if (paths.length > 1)
    throw invalid(
      http.field(paths[1]!),
      `at most one of PathExact, PathPrefix and PathRegex, got ${paths.join(' and ')}`,
    );
  for (const p of ['PathExact', 'PathPrefix']) {
    const v = http.str(p);
    if (v !== '' && !v.startsWith('/')) throw invalid(http.field(p), `must begin with "/", got "${v}"`);
  }
  regexField(http, 'PathRegex');
  const headers = http.objArray('Header');
  for (const h of headers) {
    h.onlyKeys(['Name', 'Invert', 'IgnoreCase', ...HEADER_MATCHES]);
    h.requiredStr('Name');
    const given = HEADER_MATCHES.filter((m) => (m === 'Present' ? h.bool(m) : h.str(m) !== ''));
    if (given.length > 1) throw invalid(h.field(given[1]!), `at most one of ${HEADER_MATCHES.join(', ')}`);
    regexField(h, 'Regex');
    h.bool('Invert');
    h.bool('IgnoreCase');
  }
  const methods = http.strArray('Methods');
  const seen = new Set<string>();
  methods.forEach((m, i) => {
    if (!METHODS.includes(m))
      throw invalid(`${http.field('Methods')}[${i}]`, `not an HTTP method: "${m}" (one of ${METHODS.join(', ')})`);
    if (seen.has(m)) throw invalid(`${http.field('Methods')}[${i}]`, `"${m}" is listed twice`);
    seen.add(m);
  });
  if (paths.length === 0 && headers.length === 0 && methods.length === 0) {
    throw invalid(http.path, 'at least one of PathExact, PathPrefix, PathRegex, Header or Methods must be set');
  }
}

/** One source of a service-intentions entry, past what the shape check covers. */
export function checkIntentionSource(s: Body): void {
  s.onlyKeys(SOURCE_KEYS);
  const name = s.str('Name');
  const bad = name !== '*' && meshNameProblem(name);
  if (bad) throw invalid(s.field('Name'), bad);
  s.unsupported('Peer', 'cluster peering');
  s.unsupported('SamenessGroup', 'sameness groups');
  defaultOnly(s, 'Namespace');
  defaultOnly(s, 'Partition');
  for (const p of s.objArray('Permissions')) {
    p.onlyKeys(['Action', 'HTTP', 'JWT']);
    p.oneOf('Action', ['allow', 'deny'], '' as 'allow');
    p.unsupported('JWT', 'JWT validation');
    const http = p.obj('HTTP');
    if (!http) throw invalid(p.field('HTTP'), 'is required');
    httpPermission(http);
  }
}

/** The entry itself: the hub serves no JWT requirements. */
export function checkIntentionEntry(e: Body): void {
  const name = e.str('Name');
  const bad = name !== '*' && meshNameProblem(name);
  if (bad) throw invalid(e.field('Name'), bad);
  e.unsupported('JWT', 'JWT validation');
}

/** Does an entry give L7 permissions (which need an HTTP destination)? */
export function hasPermissions(entry: Record<string, unknown>): boolean {
  const sources = Array.isArray(entry['Sources']) ? (entry['Sources'] as Record<string, unknown>[]) : [];
  return sources.some((s) => Array.isArray(s?.['Permissions']) && (s['Permissions'] as unknown[]).length > 0);
}

/**
 * The sources as Consul stores them (its SourceIntention normalisation): `Type`
 * defaults to "consul" and `Precedence` is computed from the source and
 * destination names (src/connect/intentions.ts precedenceOf), whatever the
 * client sent for it.
 */
export function normalizedSources(sources: unknown, destination: string): unknown {
  if (!Array.isArray(sources)) return sources;
  return sources.map((raw) => {
    if (raw === null || typeof raw !== 'object') return raw;
    const out: Record<string, unknown> = {};
    let type: unknown = '';
    for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
      const lower = key.toLowerCase();
      if (lower === 'precedence') continue;
      if (lower === 'type') type = value;
      else out[lower === 'name' ? 'Name' : key] = value;
    }
    out['Precedence'] = precedenceOf(String(out['Name'] ?? ''), destination);
    out['Type'] = type === '' || type === undefined ? 'consul' : type;
    return out;
  });
}
