// Config entries view: every entry of one kind (wildcard subject) or one named
// entry. Entries are keyed by partition/namespace/name like Consul's subjects;
// results are sorted by Name.
import { configSubject } from '../../catalog/events';
import type { ConfigEntry, ConfigEntryKind } from '../../catalog/types';
import { deepFreeze, type View } from '../view';
import { shardedView } from './sorted-sharded';

export interface ConfigEntriesViewOptions {
  kind: ConfigEntryKind;
  /** Absent: every entry of the kind. */
  name?: string;
}

function compareEntries(a: ConfigEntry, b: ConfigEntry): number {
  if (a.Name !== b.Name) return a.Name < b.Name ? -1 : 1;
  const ak = configSubject(a);
  const bk = configSubject(b);
  return ak === bk ? 0 : ak < bk ? -1 : 1;
}

export function configEntriesView(options: ConfigEntriesViewOptions): View<readonly ConfigEntry[]> {
  // The subject already selects the kind and name; checking again keeps a
  // misrouted event (or a wildcard server) from polluting the view.
  const wanted = (e: ConfigEntry) => e.Kind === options.kind && (options.name === undefined || e.Name === options.name);
  return shardedView('config entries', 'config-entry', compareEntries, (p) => [
    configSubject(p.entry),
    p.op === 'upsert' && wanted(p.entry) ? deepFreeze(p.entry) : undefined,
  ]);
}
