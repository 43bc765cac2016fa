// Config entries keyed by (kind, name), with Consul's check-and-set: cas 0 means
// "only if absent", cas N means "only if its ModifyIndex is N".
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
  const candidate = storable(input, 'entry');
  if (existing && sameContent(existing, candidate)) return existing;
  const entry = draft.seal({
    ...candidate,
    CreateIndex: existing?.CreateIndex ?? draft.index,
    ModifyIndex: draft.index,
  }) as ConfigEntry;
  draft.putConfig(key, entry);
  return entry;
}

export function deleteConfigEntry(draft: Draft, kindValue: unknown, name: string, cas: number | undefined): void {
  const kind = configKind(kindValue);
  const key = key2(kind, name);
  casGuard(draft.config(key), cas, `config entry ${kind}/${name}`);
  draft.deleteConfig(key);
}
