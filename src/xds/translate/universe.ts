// Which services get xDS resources: every registered service, plus every
// service a config entry refers to, so a route or failover never points at a
// cluster that does not exist (X-WARM-2) and such clusters still finish warming
// (with an empty assignment) until instances register.
import type { ServiceName } from '../../catalog/catalog';
import type { ConfigEntry, ConfigEntryKind } from '../../catalog/types';
import { chainServices } from './chain';
import { failoverTargets } from './endpoints';
import { list, record, refOf } from './inputs';
import { type ServiceRef, serviceResourceName } from './names';
import { routeBackends } from './route';

/** Resource name → service, in a stable order (listed services first). */
export function serviceUniverse(
  listed: readonly ServiceName[],
  entries: (kind: ConfigEntryKind) => readonly ConfigEntry[],
): Map<string, ServiceRef> {
  const out = new Map<string, ServiceRef>();
  const add = (ref: ServiceRef | undefined) => {
    if (!ref) return;
    const name = serviceResourceName(ref);
    if (!out.has(name)) out.set(name, ref);
  };
  const own = (e: ConfigEntry): ServiceRef => ({ name: e.Name, namespace: e.Namespace, partition: e.Partition });
  for (const s of listed) add({ name: s.Name, namespace: s.Namespace, partition: s.Partition });
  for (const e of entries('service-defaults')) add(own(e));
  for (const e of entries('service-resolver')) {
    add(own(e));
    for (const key of Object.keys(record(e['Failover']) ?? {}))
      for (const t of failoverTargets(own(e), e, key)) add(t.ref);
  }
  for (const e of entries('http-route')) {
    for (const p of list(e['Parents'])) add(record(p) && refOf(record(p)!));
    routeBackends(e).forEach(add);
  }
  chainServices(entries('service-router'), entries('service-splitter'), entries('service-resolver')).forEach(add);
  for (const e of entries('ingress-gateway')) {
    for (const l of list(e['Listeners'])) {
      for (const s of list(record(l)?.['Services'])) {
        const ref = record(s) && refOf(record(s)!);
        if (ref && ref.name !== '*') add(ref);
      }
    }
  }
  return out;
}
