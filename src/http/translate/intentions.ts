// Consul's /v1/connect/intentions API over service-intentions config entries
// (docs/mesh.md "Intentions"): an intention is one source of the entry named
// after its destination, so the API reads and rewrites entries, as Consul has
// since 1.9. Shapes: Consul's Intention JSON.

import type { Catalog } from '../../catalog/catalog';
import type { ConfigEntryInput } from '../../catalog/commands';
import type { ConfigEntry, ConfigEntryKind } from '../../catalog/types';
import { serviceProtocol } from '../../connect/central-config';
import type { Intention } from '../../connect/intentions';
import { MESH_SERVICE_NAME } from '../../connect/spiffe';
import { invalid } from '../../errors';
import { type Fields, INT, STRING, STRING_MAP } from '../../filter/index';
import { Body } from '../body';
import { parseConfigEntry } from './config-entries';
import { hasPermissions } from './intention-permissions';

export const INTENTION_FIELDS: Fields = {
  ID: STRING,
  Description: STRING,
  SourcePeer: STRING,
  SourceNS: STRING,
  SourceName: STRING,
  DestinationNS: STRING,
  DestinationName: STRING,
  SourcePartition: STRING,
  DestinationPartition: STRING,
  SourceType: STRING,
  Action: STRING,
  Precedence: INT,
  Meta: STRING_MAP,
};

/**
 * The keys an intention body may have: Consul's Intention JSON, whose Go client
 * sends every field (read-only ones such as Precedence, Hash and the indexes
 * included, and ignored as Consul ignores them). Any other key is refused.
 */
const INTENTION_BODY = [
  ...Object.keys(INTENTION_FIELDS),
  'Permissions',
  'SourceSamenessGroup',
  'DefaultAddr',
  'DefaultPort',
  'CreatedAt',
  'UpdatedAt',
  'Hash',
  'CreateIndex',
  'ModifyIndex',
];

/** An intention as Consul's API shows it. */
export function intentionJson(i: Intention): Record<string, unknown> {
  const raw = i.raw;
  const out: Record<string, unknown> = {
    ID: typeof raw['LegacyID'] === 'string' ? raw['LegacyID'] : '',
    Description: typeof raw['Description'] === 'string' ? raw['Description'] : '',
    SourceNS: 'default',
    SourceName: i.source,
    DestinationNS: 'default',
    DestinationName: i.destination,
    SourcePartition: 'default',
    DestinationPartition: 'default',
    SourcePeer: '',
    SourceType: 'consul',
  };
  if (i.rule.kind === 'l7') out['Permissions'] = raw['Permissions'];
  else out['Action'] = i.rule.kind;
  out['Precedence'] = i.precedence;
  out['Meta'] = (raw['LegacyMeta'] as Record<string, string> | undefined) ?? {};
  if (typeof raw['LegacyCreateTime'] === 'string') out['CreatedAt'] = raw['LegacyCreateTime'];
  if (typeof raw['LegacyUpdateTime'] === 'string') out['UpdatedAt'] = raw['LegacyUpdateTime'];
  out['CreateIndex'] = i.entry.CreateIndex;
  out['ModifyIndex'] = i.entry.ModifyIndex;
  return out;
}

/**
 * A source or destination name from the query or body: a service name or `*`,
 * optionally as `namespace/name` or `partition/namespace/name` (what Consul's
 * Go client sends once it has read an intention back), both only `default`.
 */
export function intentionName(value: unknown, field: string): string {
  const given = Array.isArray(value) ? String(value.at(-1) ?? '') : value === undefined ? '' : String(value);
  const parts = given.split('/');
  if (parts.length > 3) throw invalid(field, `not a service name: "${given}"`);
  const text = parts.pop()!;
  if (parts.some((p) => p !== 'default'))
    throw invalid(field, `only the "default" partition and namespace are served by this hub, got "${given}"`);
  if (text === '') throw invalid(field, 'is required');
  if (text !== '*' && !MESH_SERVICE_NAME.test(text)) throw invalid(field, `not a service name: "${text}"`);
  return text;
}

/** The source object an intention body describes (what goes into the entry's Sources). */
export function sourceFromBody(
  raw: unknown,
  source: string,
  destination: string,
  legacy?: { id: string; now: string; created?: string },
): Record<string, unknown> {
  const body = Body.of(raw ?? {});
  body.onlyKeys(INTENTION_BODY);
  for (const f of ['SourceSamenessGroup', 'DefaultAddr'])
    if (body.str(f) !== '') throw invalid(f, 'not supported by this hub');
  if (body.int('DefaultPort') !== 0) throw invalid('DefaultPort', 'not supported by this hub');
  for (const [field, want] of [
    ['SourceName', source],
    ['DestinationName', destination],
  ] as const) {
    const given = body.str(field);
    if (given !== '' && given !== want)
      throw invalid(
        field,
        `"${given}" does not match the intention's ${field === 'SourceName' ? 'source' : 'destination'} "${want}"`,
      );
  }
  for (const f of ['SourceNS', 'DestinationNS', 'SourcePartition', 'DestinationPartition']) {
    const v = body.str(f);
    if (v !== '' && v !== 'default') throw invalid(f, `only "default" is served by this hub, got "${v}"`);
  }
  if (body.str('SourcePeer') !== '') throw invalid('SourcePeer', 'not supported by this hub (cluster peering)');
  body.oneOf('SourceType', ['', 'consul'], '');
  const permissions = body.objArray('Permissions');
  const action = body.oneOf('Action', ['', 'allow', 'deny'], '');
  if (permissions.length === 0 && action === '')
    throw invalid('Action', 'is required: "allow" or "deny" (or give Permissions)');
  if (legacy && permissions.length > 0)
    throw invalid(
      'Permissions',
      'L7 permissions are only written through /v1/connect/intentions/exact or the config entry',
    );
  const out: Record<string, unknown> = { Name: source };
  if (permissions.length > 0) out['Permissions'] = body.get('Permissions');
  else out['Action'] = action;
  out['Type'] = 'consul';
  const description = body.str('Description');
  if (description) out['Description'] = description;
  const meta = body.meta('Meta');
  if (Object.keys(meta).length > 0) out['LegacyMeta'] = meta;
  if (legacy) {
    out['LegacyID'] = legacy.id;
    out['LegacyCreateTime'] = legacy.created ?? legacy.now;
    out['LegacyUpdateTime'] = legacy.now;
  }
  return out;
}

/** The destination's entry with `source` replaced (or added), validated like PUT /v1/config. */
export function withSource(
  entry: ConfigEntry | undefined,
  destination: string,
  source: Record<string, unknown>,
): ConfigEntryInput {
  const sources = (Array.isArray(entry?.['Sources']) ? (entry!['Sources'] as Record<string, unknown>[]) : []).filter(
    (s) => s['Name'] !== source['Name'],
  );
  sources.push(source);
  const {
    CreateIndex: _c,
    ModifyIndex: _m,
    ...rest
  } = entry ?? { Kind: 'service-intentions' as ConfigEntryKind, Name: destination };
  return parseConfigEntry({ ...rest, Kind: 'service-intentions', Name: destination, Sources: sources });
}

/** The destination's entry without the source; undefined when nothing is left (the entry goes). */
export function withoutSource(entry: ConfigEntry, source: string): ConfigEntryInput | undefined {
  const sources = (entry['Sources'] as Record<string, unknown>[]).filter((s) => s['Name'] !== source);
  if (sources.length === 0) return undefined;
  const { CreateIndex: _c, ModifyIndex: _m, ...rest } = entry;
  return parseConfigEntry({ ...rest, Sources: sources });
}

/**
 * L7 permissions need an HTTP destination (Consul refuses them otherwise): the
 * destination's service-defaults Protocol (else proxy-defaults' Config.protocol) must be http, http2 or grpc. A `*`
 * destination is not checked here (its sidecars enforce L7 where they speak HTTP).
 */
export function checkIntentionProtocol(entry: ConfigEntryInput, catalog: Pick<Catalog, 'configEntry'>): void {
  const name = String(entry.Name);
  if (entry.Kind !== 'service-intentions' || name === '*' || !hasPermissions(entry)) return;
  const { protocol, source } = serviceProtocol(
    catalog.configEntry('service-defaults', name).value,
    catalog.configEntry('proxy-defaults', 'global').value,
  );
  if (!['http', 'http2', 'grpc'].includes(protocol)) {
    const from = source === 'proxy-defaults' ? 'proxy-defaults Config.protocol' : 'its service-defaults Protocol';
    throw invalid(
      'Sources',
      `L7 permissions need service "${name}" to speak http, http2 or grpc (${from} is "${protocol}")`,
    );
  }
}
