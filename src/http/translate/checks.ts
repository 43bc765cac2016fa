// Check definitions in their two Consul shapes → the catalog's CheckInput:
// the agent's CheckType (flat: {TTL:"10s"} or {HTTP, Interval}) and the
// catalog's HealthCheck (with a nested Definition).

import type { CheckInput } from '../../catalog/commands';
import type { HealthCheckDefinition, HealthStatus } from '../../catalog/types';
import { invalid } from '../../errors';
import { type Body, isZeroValue } from '../body';

export const CHECK_STATUSES: readonly HealthStatus[] = ['passing', 'warning', 'critical', 'maintenance'];

/** Agent check kinds: the field that selects each, and the Type the catalog stores. */
const AGENT_KINDS = [
  { field: 'TTL', type: 'ttl', needsInterval: false },
  { field: 'HTTP', type: 'http', needsInterval: true },
  { field: 'TCP', type: 'tcp', needsInterval: true },
  { field: 'GRPC', type: 'grpc', needsInterval: true },
  { field: 'H2PING', type: 'h2ping', needsInterval: true },
  { field: 'UDP', type: 'udp', needsInterval: true },
  { field: 'Args', type: 'script', needsInterval: true },
  { field: 'AliasService', type: 'alias', needsInterval: false },
  { field: 'AliasNode', type: 'alias', needsInterval: false },
] as const;

/** Everything an agent check may carry besides its selector, copied into Definition when present. */
const DEFINITION_EXTRAS = [
  'Header',
  'Method',
  'Body',
  'TLSServerName',
  'TLSSkipVerify',
  'GRPCUseTLS',
  'TCPUseTLS',
  'H2PingUseTLS',
  'OutputMaxSize',
  'FailuresBeforeWarning',
  'FailuresBeforeCritical',
  'SuccessBeforePassing',
  'DisableRedirects',
];

/** Go's zero time.Duration as text ("0s", "0", "0ms", "0h0m0s"): the Go API sends it for every unset one. */
const ZERO_DURATION = /^(?:0+(?:\.0*)?(?:ns|us|µs|ms|s|m|h)?)+$/;

/**
 * The durations HashiCorp's Go API writes into every HealthCheckDefinition it
 * sends, "0s" when unset: zero there means unset, as Consul reads them. Other
 * zero durations (a TTL, an IntervalDuration) are still refused.
 */
const GO_DEFINITION_DURATIONS = ['Interval', 'Timeout', 'DeregisterCriticalServiceAfter'];

/** A Definition duration the Go API sends: '' when absent or zero (unset), else validated. */
function definitionDuration(def: Body, name: string, options: { positive?: boolean } = {}): string {
  return ZERO_DURATION.test(def.str(name)) ? '' : def.duration(name, options);
}

/**
 * A `Check` of a registration that is no check: absent, or every field Go's
 * zero value (`consul services register` sends `"Check":{}` for a sidecar
 * that names none; Consul's agent skips such a check, CheckType.Empty). A
 * check naming a zero duration (`{"TTL":"0s"}`) is still refused: it names a kind.
 */
export function isEmptyCheck(body: Body | undefined): boolean {
  return body === undefined || isZeroValue(body.raw);
}

export function parseStatus(body: Body, fallback: HealthStatus): HealthStatus {
  return body.oneOf('Status', CHECK_STATUSES, fallback);
}

/** The check kind, definition and timings of an agent check body (CheckType); shared by service and check registration. */
function agentCheckType(body: Body): Pick<CheckInput, 'Type' | 'Interval' | 'Timeout' | 'Definition'> {
  const present = AGENT_KINDS.filter((k) => body.has(k.field));
  const selectors = [...new Set(present.map((k) => k.type))];
  if (selectors.length !== 1) {
    throw invalid(
      body.field(present.length === 0 ? 'TTL' : present[1]!.field),
      present.length === 0
        ? 'a check needs one of TTL, HTTP, TCP, GRPC, H2PING, UDP, Args, AliasService or AliasNode'
        : `a check can have only one of ${present.map((k) => k.field).join(', ')}`,
    );
  }
  const kind = present[0]!;
  const definition: HealthCheckDefinition = {};
  for (const k of present) {
    (definition as Record<string, unknown>)[k.field] = k.field === 'Args' ? body.strArray('Args') : body.str(k.field);
  }
  const interval = body.duration('Interval', { positive: true });
  const timeout = body.duration('Timeout');
  if (kind.needsInterval && interval === '')
    throw invalid(body.field('Interval'), `is required for a ${kind.field} check`);
  if (kind.field === 'TTL') body.duration('TTL', { positive: true });
  if (interval) definition.Interval = interval;
  if (timeout) definition.Timeout = timeout;
  const deregisterAfter = body.duration('DeregisterCriticalServiceAfter');
  if (deregisterAfter) definition.DeregisterCriticalServiceAfter = deregisterAfter;
  for (const extra of DEFINITION_EXTRAS) {
    const v = body.get(extra);
    if (v !== undefined) definition[extra] = v;
  }
  return { Type: kind.type, Interval: interval, Timeout: timeout, Definition: definition };
}

/**
 * One check of an agent service registration. Consul's defaults: ID
 * `service:<id>` (`service:<id>:<n>` when there are several, n from 1), name
 * `Service '<name>' check`, status critical unless given.
 */
export function parseAgentServiceCheck(
  body: Body,
  node: string,
  service: { ID: string; Service: string },
  position: { index: number; count: number },
): CheckInput {
  const type = agentCheckType(body);
  const defaultId = position.count > 1 ? `service:${service.ID}:${position.index + 1}` : `service:${service.ID}`;
  return {
    Node: node,
    CheckID: body.name('CheckID') || body.name('ID') || defaultId,
    Name: body.name('Name') || `Service '${service.Service}' check`,
    Status: parseStatus(body, 'critical'),
    Notes: body.str('Notes'),
    Output: '',
    ServiceID: service.ID,
    ...type,
  };
}

/** PUT /v1/agent/check/register (Consul's CheckDefinition): Name required, ID defaults to it, status critical unless given. */
export function parseAgentCheck(body: Body, node: string): CheckInput {
  const name = body.name('Name');
  if (name === '') throw invalid('Name', 'Missing check name');
  return {
    Node: node,
    CheckID: body.name('ID') || body.name('CheckID') || name,
    Name: name,
    Status: parseStatus(body, 'critical'),
    Notes: body.str('Notes'),
    Output: '',
    ServiceID: body.name('ServiceID'),
    ...agentCheckType(body),
  };
}

/**
 * A check in the catalog's HealthCheck shape (catalog register, txn Check ops).
 * CheckID defaults to Name and Status to critical (Consul's catalog register).
 */
export function parseCatalogCheck(body: Body, defaultNode: string): CheckInput {
  const node = body.name('Node') || defaultNode;
  if (node === '') throw invalid(body.field('Node'), 'is required');
  const name = body.name('Name');
  const checkId = body.name('CheckID') || name;
  if (checkId === '') throw invalid(body.field('CheckID'), 'is required (or give a Name)');
  const def = body.obj('Definition');
  const definition: HealthCheckDefinition = {};
  let type = body.str('Type');
  let interval = body.duration('Interval', { positive: true });
  let timeout = body.duration('Timeout');
  if (def) {
    // Go's zero durations ("0s" in every HealthCheckDefinition the Go API sends) are unset: not kept.
    const goDuration = (key: string) => GO_DEFINITION_DURATIONS.some((d) => d.toLowerCase() === key.toLowerCase());
    const zero = (key: string, value: unknown) =>
      typeof value === 'string' && ZERO_DURATION.test(value) && goDuration(key);
    for (const [key, value] of Object.entries(def.raw)) {
      if (value !== null && !zero(key, value)) definition[key] = value;
    }
    // The Go API and the npm client send IntervalDuration/TimeoutDuration here.
    const given = definitionDuration(def, 'Interval', { positive: true });
    interval = interval || given || def.duration('IntervalDuration', { positive: true });
    timeout = timeout || definitionDuration(def, 'Timeout') || def.duration('TimeoutDuration');
    const ttl = def.duration('TTL', { positive: true });
    if (ttl) definition.TTL = ttl;
    // The Go API sends every kind's field, "" for the ones not chosen: only a set one selects.
    const selected = ['TTL', 'HTTP', 'TCP', 'GRPC', 'UDP', 'H2PING'].filter((f) => !isZeroValue(def.get(f)));
    if (selected.length > 1)
      throw invalid(def.field(selected[1]!), `a check can have only one of ${selected.join(', ')}`);
    if (type === '' && selected.length === 1) type = selected[0]!.toLowerCase();
  }
  if (interval) definition.Interval = interval;
  if (timeout) definition.Timeout = timeout;
  return {
    Node: node,
    CheckID: checkId,
    Name: name || checkId,
    Status: parseStatus(body, 'critical'),
    Notes: body.str('Notes'),
    Output: body.str('Output'),
    ServiceID: body.name('ServiceID'),
    Type: type,
    Interval: interval,
    Timeout: timeout,
    Definition: definition,
  };
}

/** Refuses two checks with one CheckID in one registration (Consul's agent and catalog do); `bodies[i]` is where check i came from. */
export function uniqueCheckIds(checks: readonly CheckInput[], bodies: readonly Body[]): void {
  const seen = new Set<string>();
  checks.forEach((c, i) => {
    if (seen.has(c.CheckID)) throw invalid(bodies[i]!.field('CheckID'), `duplicate check ID "${c.CheckID}"`);
    seen.add(c.CheckID);
  });
}
