// Service list view (Consul's ServiceList topic): the set of service names that
// have at least one instance. The publisher sends Register when a name appears
// and Deregister when its last instance goes.
import type { ServiceName } from '../../catalog/catalog';
import type { View } from '../view';
import { shardedView } from './sorted-sharded';

function compareNames(a: ServiceName, b: ServiceName): number {
  if (a.Name !== b.Name) return a.Name < b.Name ? -1 : 1;
  if (a.Namespace !== b.Namespace) return a.Namespace < b.Namespace ? -1 : 1;
  return a.Partition === b.Partition ? 0 : a.Partition < b.Partition ? -1 : 1;
}

export function serviceListView(): View<readonly ServiceName[]> {
  return shardedView('service list', 'service-list', compareNames, (p) => [
    `${p.partition}/${p.namespace}/${p.name}`,
    p.op === 'register' ? Object.freeze({ Name: p.name, Namespace: p.namespace, Partition: p.partition }) : undefined,
  ]);
}
