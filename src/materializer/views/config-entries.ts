// Config entries view: every entry of one kind (wildcard subject) or one named
// entry. Entries are keyed by partition/namespace/name like Consul's subjects;
// results are sorted by Name.
import type { ConfigEntry, ConfigEntryKind } from '../../catalog/types';
import { HubError } from '../../errors';
import { type View, deepFreeze } from '../view';
import type { Change } from './sharded-map';
import { sortedSharded } from './sorted-sharded';

export interface ConfigEntriesViewOptions {
  kind: ConfigEntryKind;
  /** Absent: every entry of the kind. */
  name?: string;
}

function entryKey(e: ConfigEntry): string {
  return `${e.Partition || 'default'}/${e.Namespace || 'default'}/${e.Name}`;
}

function compareEntries(a: ConfigEntry, b: ConfigEntry): number {
  if (a.Name !== b.Name) return a.Name < b.Name ? -1 : 1;
  const ak = entryKey(a);
  const bk = entryKey(b);
  return ak === bk ? 0 : ak < bk ? -1 : 1;
}

export function configEntriesView(options: ConfigEntriesViewOptions): View<readonly ConfigEntry[]> {
  const store = sortedSharded(compareEntries);
  return {
    update(events) {
      const changes: Change<ConfigEntry>[] = [];
      for (const event of events) {
        const p = event.payload;
        if (p.type !== 'config-entry') throw new HubError('INTERNAL', `config entries view got a ${p.type} event`);
        const entry = p.entry;
        // The subject already selects the kind and name; checking again keeps a
        // misrouted event (or a wildcard server) from polluting the view.
        const wanted = entry.Kind === options.kind && (options.name === undefined || entry.Name === options.name);
        changes.push([entryKey(entry), p.op === 'upsert' && wanted ? deepFreeze(entry) : undefined]);
      }
      store.apply(changes);
    },
    result: () => store.result(),
    reset: () => store.reset(),
  };
}
