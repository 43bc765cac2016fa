// Config entries keyed by (kind, name), with Consul's check-and-set: cas 0 means
// "only if absent", cas N means "only if its ModifyIndex is N".

import { serviceProtocol } from '../connect/central-config';
import { ApplyError, checkMeta, optionalName, requireName, storable } from './catalog-ops';
import type { ConfigEntryInput } from './commands';
import type { Draft } from './tables';
import { CONFIG_ENTRY_KINDS, type ConfigEntry, type ConfigEntryKind } from './types';
import { key2, sameContent } from './values';

const KINDS: ReadonlySet<string> = new Set(CONFIG_ENTRY_KINDS);

export function configKind(value: unknown, field = 'Kind'): ConfigEntryKind {
  if (typeof value !== 'string' || !KINDS.has(value)) {
    throw new ApplyError('INVALID_ARGUMENT', `${field}: unknown config entry kind ${JSON.stringify(value)}`, field);
  }
  return value as ConfigEntryKind;
}

function casGuard(existing: ConfigEntry | undefined, cas: number | undefined, what: string): void {
  if (cas === undefined) return;
  const current = existing?.ModifyIndex ?? 0;
  if (current !== cas) {
    throw new ApplyError('CONFLICT', `${what}: check-and-set index ${cas} does not match ${current}`, 'cas');
  }
}

export function setConfigEntry(draft: Draft, input: ConfigEntryInput, cas: number | undefined): ConfigEntry {
  const kind = configKind(input?.Kind);
  const name = requireName(input.Name, 'Name');
  optionalName(input.Namespace, 'Namespace');
  optionalName(input.Partition, 'Partition');
  checkMeta(input.Meta, 'Meta');
  const key = key2(kind, name);
  const existing = draft.config(key);
  casGuard(existing, cas, `config entry ${kind}/${name}`);
  const candidate = storable(draft, input, 'entry');
  if (existing && sameContent(existing, candidate)) return existing;
  const entry = draft.seal({
    ...candidate,
    CreateIndex: existing?.CreateIndex ?? draft.index,
    ModifyIndex: draft.index,
  }) as ConfigEntry;
  draft.putConfig(key, entry);
  const field = kind === 'service-defaults' ? 'Protocol' : kind === 'proxy-defaults' ? 'Config.protocol' : 'Name';
  checkChainProtocols(draft, kind, name, field);
  return entry;
}

export function deleteConfigEntry(draft: Draft, kindValue: unknown, name: string, cas: number | undefined): void {
  const kind = configKind(kindValue);
  const key = key2(kind, name);
  casGuard(draft.config(key), cas, `config entry ${kind}/${name}`);
  draft.deleteConfig(key);
  checkChainProtocols(draft, kind, name, 'name');
}

/** Protocols that let a discovery chain route and split (Consul's L7 protocols). */
const L7_PROTOCOLS: ReadonlySet<string> = new Set(['http', 'http2', 'grpc']);

/**
 * A service's protocol as Consul decides it for its discovery chain: its
 * service-defaults Protocol, else proxy-defaults `global` Config.protocol, else tcp.
 */
function chainProtocol(draft: Draft, service: string): { protocol: string; from: string } {
  const { protocol, source } = serviceProtocol(
    draft.config(key2('service-defaults', service)),
    draft.config(key2('proxy-defaults', 'global')),
  );
  const from =
    source === 'service-defaults'
      ? `service-defaults "${service}" Protocol`
      : source === 'proxy-defaults'
        ? 'proxy-defaults "global" Config.protocol'
        : 'the default: no service-defaults Protocol';
  return { protocol, from };
}

/**
 * Consul's rule for routers and splitters (docs/http-api.md, "Discovery
 * chains"): a service-router or service-splitter may only exist for a service
 * whose protocol is http, http2 or grpc; tcp traffic cannot be matched or
 * split per request. Checked after the write, in the state: a router or
 * splitter for a tcp service is refused, and so is a change or deletion of
 * its service-defaults that would leave one on tcp.
 */
function checkChainProtocols(draft: Draft, kind: string, name: string, field: string): void {
  // proxy-defaults is every service's fallback: every chain is checked again (as Consul does).
  if (kind === 'proxy-defaults') {
    const chains = new Set([...draft.configNames('service-router'), ...draft.configNames('service-splitter')]);
    for (const service of [...chains].sort()) checkChainProtocols(draft, 'service-defaults', service, field);
    return;
  }
  if (kind !== 'service-router' && kind !== 'service-splitter' && kind !== 'service-defaults') return;
  const uses = (['service-router', 'service-splitter'] as const).filter(
    (k) => draft.config(key2(k, name)) !== undefined,
  );
  if (uses.length === 0) return;
  const { protocol, from } = chainProtocol(draft, name);
  if (L7_PROTOCOLS.has(protocol)) return;
  throw new ApplyError(
    'INVALID_ARGUMENT',
    `${field}: discovery chain "${name}" uses protocol "${protocol}" (${from}), which does not permit the routing or splitting of its ${uses.join(' and ')}; ` +
      'set its service-defaults Protocol to http, http2 or grpc',
    field,
  );
}
