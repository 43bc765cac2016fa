// Intentions → Envoy RBAC on a sidecar's public listener (docs/mesh.md
// "Intentions on the wire"). The destination's policy (src/connect/intentions.ts)
// gives a rule per named source and one for everyone else; both filters are
// ALLOW lists (nothing matches → denied):
//
// - the network RBAC filter (every public listener) admits a connection whose
//   client certificate carries an allowed source's SPIFFE ID. For an HTTP
//   service a source with L7 permissions is admitted here and decided per
//   request below; for a TCP service such a source is refused (its
//   permissions need requests to look at).
// - the HTTP RBAC filter (HTTP services) decides each request: allow rules
//   match any request, L7 rules their compiled permissions.
//
// "Everyone else" is any SPIFFE ID of this trust domain but the named sources.
import type { DestinationPolicy, HttpPermission, IntentionAction, Rule } from '../../../connect/intentions';
import { serviceSpiffeId } from '../../../connect/spiffe';
import { ExtensionType } from '../extension-types';

type Plain = Record<string, unknown>;

export interface Identity {
  trustDomain: string;
  datacenter: string;
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function principalOf(source: string, id: Identity): Plain {
  return { authenticated: { principal_name: { exact: serviceSpiffeId(id.trustDomain, id.datacenter, source) } } };
}

/** Any service of this trust domain but the named sources. */
function othersPrincipal(named: readonly string[], id: Identity): Plain {
  const any = {
    authenticated: {
      principal_name: {
        safe_regex: { regex: `^spiffe://${escapeRegex(id.trustDomain)}/ns/default/dc/[^/]+/svc/[^/]+$` },
      },
    },
  };
  if (named.length === 0) return any;
  return { and_ids: { ids: [any, ...named.map((s) => ({ not_id: principalOf(s, id) }))] } };
}

function headerPermission(h: Record<string, unknown>): Plain {
  const name = String(h['Name'] ?? '');
  const matcher: Plain = { name };
  const ignoreCase = h['IgnoreCase'] === true ? { ignore_case: true } : {};
  if (h['Present'] === true) matcher['present_match'] = true;
  else if (typeof h['Exact'] === 'string' && h['Exact'] !== '')
    matcher['string_match'] = { exact: h['Exact'], ...ignoreCase };
  else if (typeof h['Prefix'] === 'string' && h['Prefix'] !== '')
    matcher['string_match'] = { prefix: h['Prefix'], ...ignoreCase };
  else if (typeof h['Suffix'] === 'string' && h['Suffix'] !== '')
    matcher['string_match'] = { suffix: h['Suffix'], ...ignoreCase };
  else if (typeof h['Contains'] === 'string' && h['Contains'] !== '')
    matcher['string_match'] = { contains: h['Contains'], ...ignoreCase };
  else if (typeof h['Regex'] === 'string' && h['Regex'] !== '')
    matcher['string_match'] = { safe_regex: { regex: h['Regex'] } };
  else matcher['present_match'] = true;
  if (h['Invert'] === true) matcher['invert_match'] = true;
  return { header: matcher };
}

/** One IntentionHTTPPermission as an RBAC permission: every part must match. */
function httpMatch(http: Record<string, unknown>): Plain {
  const parts: Plain[] = [];
  const path = (m: Plain) => parts.push({ url_path: { path: m } });
  if (typeof http['PathExact'] === 'string' && http['PathExact'] !== '') path({ exact: http['PathExact'] });
  else if (typeof http['PathPrefix'] === 'string' && http['PathPrefix'] !== '') path({ prefix: http['PathPrefix'] });
  else if (typeof http['PathRegex'] === 'string' && http['PathRegex'] !== '')
    path({ safe_regex: { regex: http['PathRegex'] } });
  for (const h of Array.isArray(http['Header']) ? (http['Header'] as Record<string, unknown>[]) : [])
    parts.push(headerPermission(h));
  const methods = Array.isArray(http['Methods']) ? (http['Methods'] as string[]) : [];
  if (methods.length > 0)
    parts.push({
      header: { name: ':method', string_match: { safe_regex: { regex: methods.map(escapeRegex).join('|') } } },
    });
  if (parts.length === 0) return { any: true };
  return parts.length === 1 ? parts[0]! : { and_rules: { rules: parts } };
}

const not = (p: Plain): Plain => ({ not_rule: p });
const and = (rules: Plain[]): Plain => (rules.length === 1 ? rules[0]! : { and_rules: { rules } });
const or = (rules: Plain[]): Plain => (rules.length === 1 ? rules[0]! : { or_rules: { rules } });

/**
 * The requests an L7 intention lets through: the first matching permission
 * decides, and a request none matches gets the default. Allowed iff some allow
 * permission matches and no deny before it does, or (default allow) no deny
 * permission matches at all. Undefined when nothing can be allowed.
 */
export function l7Permission(permissions: readonly HttpPermission[], fallback: IntentionAction): Plain | undefined {
  const terms: Plain[] = [];
  const denies: Plain[] = [];
  for (const p of permissions) {
    const m = httpMatch(p.http);
    if (p.action === 'allow') terms.push(and([m, ...denies.map(not)]));
    else denies.push(m);
  }
  if (fallback === 'allow') terms.push(denies.length === 0 ? { any: true } : and(denies.map(not)));
  return terms.length === 0 ? undefined : or(terms);
}

/** Whether a rule can let anything through on a connection (network filter). */
function admitsConnection(rule: Rule, http: boolean, fallback: IntentionAction): boolean {
  if (rule.kind === 'allow') return true;
  if (rule.kind === 'deny') return false;
  return http && l7Permission(rule.permissions, fallback) !== undefined;
}

function groups(policy: DestinationPolicy, id: Identity): { key: string; principal: Plain; rule: Rule }[] {
  const named = [...policy.named.keys()];
  return [
    ...[...policy.named].map(([source, rule]) => ({
      key: `source:${source}`,
      principal: principalOf(source, id),
      rule,
    })),
    { key: 'others', principal: othersPrincipal(named, id), rule: policy.others },
  ];
}

/** The network RBAC filter of a public listener. */
export function networkRbacFilter(
  policy: DestinationPolicy,
  id: Identity,
  http: boolean,
  fallback: IntentionAction,
): Plain {
  const policies: Record<string, Plain> = {};
  for (const g of groups(policy, id)) {
    if (admitsConnection(g.rule, http, fallback))
      policies[g.key] = { permissions: [{ any: true }], principals: [g.principal] };
  }
  return {
    name: 'envoy.filters.network.rbac',
    typed_config: {
      '@type': ExtensionType.NetworkRbac,
      stat_prefix: 'connect_authz',
      rules: { action: 'ALLOW', policies },
    },
  };
}

/** The HTTP RBAC filter of an HTTP service's public listener. */
export function httpRbacFilter(policy: DestinationPolicy, id: Identity, fallback: IntentionAction): Plain {
  const policies: Record<string, Plain> = {};
  for (const g of groups(policy, id)) {
    const permission =
      g.rule.kind === 'allow'
        ? { any: true }
        : g.rule.kind === 'l7'
          ? l7Permission(g.rule.permissions, fallback)
          : undefined;
    if (permission) policies[g.key] = { permissions: [permission], principals: [g.principal] };
  }
  return {
    name: 'envoy.filters.http.rbac',
    typed_config: { '@type': ExtensionType.HttpRbac, rules: { action: 'ALLOW', policies } },
  };
}
