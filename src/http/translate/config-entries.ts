// Config entries: one validator per kind, checking what the xDS translation
// relies on (required fields, types, enums). Known top-level keys are
// re-spelled in Consul's PascalCase; unknown keys are kept as given.

import type { ConfigEntryInput } from '../../catalog/commands';
import { CONFIG_ENTRY_KINDS, isConfigEntryKind } from '../../catalog/config-kinds';
import { sizeProblem } from '../../catalog/limits';
import type { ConfigEntryKind } from '../../catalog/types';
import { HubError, invalid } from '../../errors';
import { Body } from '../body';
import { serviceRouter, serviceSplitter } from './config-chain';
import { checkIntentionEntry, checkIntentionSource, normalizedSources } from './intention-permissions';
import { proxyDefaults, proxyDefaultsName } from './proxy-defaults';
import { regexField } from './re2';

export const PROTOCOLS = ['tcp', 'http', 'http2', 'grpc'] as const;
export const LB_POLICIES = ['', 'round_robin', 'least_request', 'ring_hash', 'maglev', 'random'] as const;
const PATH_MATCHES = ['exact', 'prefix', 'regex'] as const;
const HEADER_MATCHES = ['exact', 'prefix', 'suffix', 'regex', 'present'] as const;
const HASH_FIELDS = ['header', 'cookie', 'query_parameter'] as const;

/**
 * Consul 1.16's config entry kinds (api/config_entry.go, with the Enterprise
 * ones). One the hub does not serve is refused as such, not as a typo.
 */
const CONSUL_KINDS: ReadonlySet<string> = new Set([
  'service-defaults',
  'proxy-defaults',
  'service-router',
  'service-splitter',
  'service-resolver',
  'ingress-gateway',
  'terminating-gateway',
  'service-intentions',
  'mesh',
  'exported-services',
  'sameness-group',
  'api-gateway',
  'bound-api-gateway',
  'inline-certificate',
  'http-route',
  'tcp-route',
  'jwt-provider',
  'control-plane-request-limit',
]);

/**
 * Consul's message for an unknown kind. Its PUT /v1/config says it while
 * decoding the body, hence the prefix there. A Consul kind the hub does not
 * serve gets its own message (docs/catalog.md, "Config entries").
 */
export function checkKind(kind: string, field = 'Kind', prefix = ''): ConfigEntryKind {
  if (!isConfigEntryKind(kind) && CONSUL_KINDS.has(kind)) {
    throw new HubError(
      'INVALID_ARGUMENT',
      `${field}: config entry kind "${kind}" is not supported by this hub (it serves ${CONFIG_ENTRY_KINDS.join(', ')})`,
      { field },
    );
  }
  if (!isConfigEntryKind(kind)) {
    throw new HubError('INVALID_ARGUMENT', `${prefix}invalid config entry kind: ${kind}`, { field });
  }
  return kind;
}

function protocol(body: Body, name: string, fallback: string): string {
  return body.oneOf(name, ['', ...PROTOCOLS], fallback as '') || fallback;
}

function serviceDefaults(e: Body): string[] {
  protocol(e, 'Protocol', '');
  e.oneOf('Mode', ['', 'transparent', 'direct'], '');
  e.obj('MeshGateway')?.oneOf('Mode', ['', 'none', 'local', 'remote'], '');
  e.str('ExternalSNI');
  e.int('MaxInboundConnections', 0, { min: 0 });
  e.int('LocalConnectTimeoutMs', 0, { min: 0 });
  e.int('LocalRequestTimeoutMs', 0, { min: 0 });
  e.oneOf('BalanceInboundConnections', ['', 'exact_balance'], '');
  e.obj('UpstreamConfig');
  e.obj('TransparentProxy');
  return [
    'Protocol',
    'Mode',
    'MeshGateway',
    'ExternalSNI',
    'MaxInboundConnections',
    'LocalConnectTimeoutMs',
    'LocalRequestTimeoutMs',
    'BalanceInboundConnections',
    'UpstreamConfig',
    'TransparentProxy',
    'Expose',
    'Destination',
    'EnvoyExtensions',
    'RateLimits',
    'MutualTLSMode',
  ];
}

function serviceResolver(e: Body): string[] {
  const subsets = e.objMap('Subsets');
  for (const [, subset] of subsets) {
    subset.str('Filter');
    subset.bool('OnlyPassing');
  }
  const defaultSubset = e.str('DefaultSubset');
  if (defaultSubset && !subsets.has(defaultSubset)) {
    throw invalid(e.field('DefaultSubset'), `"${defaultSubset}" is not a defined subset`);
  }
  const redirect = e.obj('Redirect');
  if (redirect)
    for (const f of ['Service', 'ServiceSubset', 'Namespace', 'Partition', 'Datacenter', 'Peer']) redirect.name(f);
  for (const [key, failover] of e.objMap('Failover')) {
    // Failover is keyed by subset (Consul: "not a valid subset"), `*` for any.
    if (key !== '*' && !subsets.has(key))
      throw invalid(failover.path, `"${key}" is neither "*" nor a subset this resolver defines`);
    const service = failover.name('Service');
    const toSubset = failover.name('ServiceSubset');
    if (toSubset !== '' && (service === '' || service === e.str('Name')) && !subsets.has(toSubset)) {
      throw invalid(failover.field('ServiceSubset'), `"${toSubset}" is not a subset this resolver defines`);
    }
    failover.strArray('Datacenters');
    failover.objArray('Targets');
  }
  e.duration('ConnectTimeout');
  e.duration('RequestTimeout');
  const lb = e.obj('LoadBalancer');
  if (lb) {
    const policy = lb.oneOf('Policy', LB_POLICIES, '');
    const ring = lb.obj('RingHashConfig');
    if (ring) {
      const min = ring.int('MinimumRingSize', 0, { min: 0 });
      const max = ring.int('MaximumRingSize', 0, { min: 0 });
      if (min && max && min > max) throw invalid(ring.field('MinimumRingSize'), 'must not exceed MaximumRingSize');
    }
    lb.obj('LeastRequestConfig')?.int('ChoiceCount', 0, { min: 0 });
    const hashPolicies = lb.objArray('HashPolicies');
    if (hashPolicies.length > 0 && policy !== 'ring_hash' && policy !== 'maglev') {
      throw invalid(lb.field('HashPolicies'), `only valid with Policy "ring_hash" or "maglev", got "${policy}"`);
    }
    for (const hp of hashPolicies) {
      const field = hp.oneOf('Field', ['', ...HASH_FIELDS], '');
      const sourceIp = hp.bool('SourceIP');
      if (field !== '' && sourceIp) throw invalid(hp.field('SourceIP'), 'cannot be combined with Field');
      if (field !== '' && hp.str('FieldValue') === '')
        throw invalid(hp.field('FieldValue'), `is required with Field "${field}"`);
      hp.bool('Terminal');
    }
  }
  return [
    'DefaultSubset',
    'Subsets',
    'Redirect',
    'Failover',
    'ConnectTimeout',
    'RequestTimeout',
    'LoadBalancer',
    'PrioritizeByLocality',
  ];
}

function ingressGateway(e: Body): string[] {
  const ports = new Set<number>();
  for (const listener of e.objArray('Listeners')) {
    const port = listener.int('Port', 0, { min: 1, max: 65535 });
    if (port === 0) throw invalid(listener.field('Port'), 'is required');
    if (ports.has(port)) throw invalid(listener.field('Port'), `port ${port} is used by another listener`);
    ports.add(port);
    const proto = protocol(listener, 'Protocol', 'tcp');
    const services = listener.objArray('Services');
    if (proto === 'tcp' && services.length > 1) {
      throw invalid(listener.field('Services'), 'a tcp listener can route to only one service');
    }
    for (const s of services) {
      const name = s.requiredName('Name');
      const hosts = s.strArray('Hosts');
      if (name === '*' && proto === 'tcp')
        throw invalid(s.field('Name'), 'the wildcard "*" needs an http, http2 or grpc listener');
      if (hosts.length > 0 && proto === 'tcp')
        throw invalid(s.field('Hosts'), 'hosts need an http, http2 or grpc listener');
    }
  }
  e.obj('TLS')?.bool('Enabled');
  return ['Listeners', 'TLS', 'Defaults'];
}

/** Consul's TerminatingGatewayConfigEntry (docs/gateways.md "Terminating gateways"). */
function terminatingGateway(e: Body): string[] {
  const seen = new Set<string>();
  for (const s of e.objArray('Services')) {
    const name = s.requiredName('Name');
    if (seen.has(name)) throw invalid(s.field('Name'), `service "${name}" is linked more than once`);
    seen.add(name);
    s.name('Namespace');
    s.name('Partition');
    // TLS origination to the linked service: files on the gateway's machine, as Consul's.
    const [ca, cert, key] = [s.str('CAFile'), s.str('CertFile'), s.str('KeyFile')];
    if ((cert === '') !== (key === ''))
      throw invalid(s.field(cert === '' ? 'CertFile' : 'KeyFile'), 'CertFile and KeyFile go together');
    if (cert !== '' && ca === '') throw invalid(s.field('CAFile'), 'is required with CertFile and KeyFile');
    if (s.str('SNI') !== '' && ca === '')
      throw invalid(s.field('SNI'), 'needs CAFile (SNI is sent only when the gateway originates TLS)');
    s.bool('DisableAutoHostRewrite');
  }
  return ['Services'];
}

function httpRoute(e: Body): string[] {
  const parents = e.objArray('Parents');
  if (parents.length === 0) throw invalid(e.field('Parents'), 'needs at least one parent');
  for (const p of parents) {
    p.requiredName('Name');
    p.oneOf('Kind', ['', 'api-gateway'], '');
    p.str('SectionName');
  }
  e.strArray('Hostnames');
  for (const rule of e.objArray('Rules')) {
    for (const match of rule.objArray('Matches')) {
      const path = match.obj('Path');
      if (path) {
        const kind = path.oneOf('Match', ['', ...PATH_MATCHES], '');
        const value = kind === 'regex' ? regexField(path, 'Value') : path.str('Value');
        if (kind === 'prefix' && value !== '' && !value.startsWith('/')) {
          throw invalid(path.field('Value'), 'a prefix must start with "/"');
        }
      }
      for (const h of match.objArray('Headers')) {
        h.requiredStr('Name');
        if (h.oneOf('Match', ['', ...HEADER_MATCHES], '') === 'regex') regexField(h, 'Value', true);
      }
      for (const q of match.objArray('Query')) {
        q.requiredStr('Name');
        if (q.oneOf('Match', ['', 'exact', 'regex', 'present'], '') === 'regex') regexField(q, 'Value', true);
      }
      match.oneOf('Method', ['', 'CONNECT', 'DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT', 'TRACE'], '');
    }
    rule.obj('Filters');
    for (const s of rule.objArray('Services')) {
      s.requiredName('Name');
      s.int('Weight', 1, { min: 0 });
    }
  }
  return ['Parents', 'Rules', 'Hostnames', 'Status'];
}

function mesh(e: Body): string[] {
  // The sidecars this hub builds would not act on these, so a value is refused
  // rather than stored and ignored (zero values, as Go clients send, pass).
  e.unsupported('TransparentProxy', 'transparent proxying');
  e.unsupported('AllowEnablingPermissiveMutualTLS', 'permissive mutual TLS');
  e.unsupported('TLS', 'mesh-wide TLS parameters: sidecars use the CA defaults');
  e.unsupported('HTTP', 'X-Forwarded-Client-Cert sanitising');
  e.unsupported('Peering', 'cluster peering');
  // xdshub extension (docs/mesh.md): the default intention; Consul takes it from the agent's configuration.
  e.oneOf('DefaultIntentionPolicy', ['', 'allow', 'deny'], '');
  return ['TransparentProxy', 'AllowEnablingPermissiveMutualTLS', 'TLS', 'HTTP', 'Peering', 'DefaultIntentionPolicy'];
}

function serviceIntentions(e: Body): string[] {
  const seen = new Set<string>();
  for (const s of e.objArray('Sources')) {
    const name = s.requiredName('Name');
    const key = `${s.str('Peer')}/${s.str('Partition')}/${s.str('Namespace')}/${name}`;
    if (seen.has(key)) throw invalid(s.field('Name'), `source "${name}" is listed more than once`);
    seen.add(key);
    const permissions = s.objArray('Permissions');
    const action = s.oneOf('Action', ['', 'allow', 'deny'], '');
    if (action === '' && permissions.length === 0)
      throw invalid(s.field('Action'), 'must be "allow" or "deny" (or give Permissions)');
    if (action !== '' && permissions.length > 0)
      throw invalid(s.field('Action'), 'cannot be combined with Permissions');
    for (const p of permissions) p.oneOf('Action', ['allow', 'deny'], '' as 'allow');
    s.oneOf('Type', ['', 'consul'], '');
    s.str('Description');
    checkIntentionSource(s);
  }
  checkIntentionEntry(e);
  return ['Sources', 'JWT'];
}

const VALIDATORS: Record<ConfigEntryKind, (e: Body) => string[]> = {
  'service-defaults': serviceDefaults,
  'service-resolver': serviceResolver,
  'ingress-gateway': ingressGateway,
  'http-route': httpRoute,
  mesh,
  'service-intentions': serviceIntentions,
  'service-router': serviceRouter,
  'service-splitter': serviceSplitter,
  'proxy-defaults': proxyDefaults,
  'terminating-gateway': terminatingGateway,
};

const COMMON = ['Kind', 'Name', 'Namespace', 'Partition', 'Meta'];

/** Validates a PUT /v1/config body and returns the entry to store. */
export function parseConfigEntry(raw: unknown): ConfigEntryInput {
  const body = Body.of(raw);
  const kindText = body.str('Kind');
  if (kindText === '') throw invalid('Kind', 'is required');
  const kind = checkKind(kindText, 'Kind', 'Request decoding failed: ');
  let name = body.name('Name');
  if (kind === 'mesh') {
    if (name !== '' && name !== 'mesh') throw invalid('Name', 'a mesh entry is a singleton named "mesh"');
    name = 'mesh';
  } else if (kind === 'proxy-defaults') {
    name = proxyDefaultsName(name);
  } else if (name === '') {
    throw invalid('Name', 'is required');
  }
  body.meta('Meta');
  body.name('Namespace');
  body.name('Partition');
  const known = [...COMMON, ...VALIDATORS[kind](body)];

  const entry: Record<string, unknown> = {};
  const canonical = new Map(known.map((k) => [k.toLowerCase(), k]));
  for (const [key, value] of Object.entries(body.raw)) {
    if (key === 'CreateIndex' || key === 'ModifyIndex') continue;
    entry[canonical.get(key.toLowerCase()) ?? key] = value;
  }
  entry.Kind = kind;
  entry.Name = name;
  if (kind === 'service-intentions') entry.Sources = normalizedSources(entry.Sources, name);
  const big = sizeProblem(JSON.stringify(entry));
  if (big) throw invalid('body', big);
  return entry as ConfigEntryInput;
}
