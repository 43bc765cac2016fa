// Service list view (Consul's ServiceList topic): the set of service names that
// have at least one instance. The publisher sends Register when a name appears
// and Deregister when its last instance goes.
import type { ServiceName } from '../../catalog/catalog';
import { HubError } from '../../errors';
import type { View } from '../view';
import type { Change } from './sharded-map';
import { sortedSharded } from './sorted-sharded';

function compareNames(a: ServiceName, b: ServiceName): number {
  if (a.Name !== b.Name) return a.Name < b.Name ? -1 : 1;
  if (a.Namespace !== b.Namespace) return a.Namespace < b.Namespace ? -1 : 1;
  return a.Partition === b.Partition ? 0 : a.Partition < b.Partition ? -1 : 1;
}

export function serviceListView(): View<readonly ServiceName[]> {
  const store = sortedSharded(compareNames);
  return {
    update(events) {
      const changes: Change<ServiceName>[] = [];
      for (const event of events) {
        const p = event.payload;
        if (p.type !== 'service-list') throw new HubError('INTERNAL', `service list view got a ${p.type} event`);
        const name = { Name: p.name, Namespace: p.namespace, Partition: p.partition };
        changes.push([`${p.partition}/${p.namespace}/${p.name}`, p.op === 'register' ? Object.freeze(name) : undefined]);
      }
      store.apply(changes);
    },
    result: () => store.result(),
    reset: () => store.reset(),
  };
}
