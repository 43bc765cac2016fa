// XA0003, XA0004, XA0006, XA0009: what entries name must exist. A service
// exists when it is registered, or is virtual: a splitter's own name or a
// resolver that redirects (Consul routes to those without instances). A subset
// exists when the target service's service-resolver defines it.
import { record, str } from '../../xds/translate/inputs';
import { type Finding, finding } from './codes';
import { type At, child, entryId, type Json, objects, root, routerMatches, text } from './fields';

export interface World {
  /** Every service name that exists (registered or virtual). */
  services: ReadonlySet<string>;
  /** Service → the subsets its service-resolver defines. */
  subsets: ReadonlyMap<string, ReadonlySet<string>>;
  /** Service → its service-defaults Protocol (absent: tcp). */
  protocols: ReadonlyMap<string, string>;
}

export function worldOf(registered: readonly string[], entries: readonly Json[]): World {
  const services = new Set(registered);
  const subsets = new Map<string, Set<string>>();
  const protocols = new Map<string, string>();
  for (const e of entries) {
    const name = str(e['Name']);
    if (!name) continue;
    if (e['Kind'] === 'service-splitter') services.add(name);
    if (e['Kind'] === 'service-resolver') {
      if (record(e['Redirect'])) services.add(name);
      subsets.set(name, new Set(Object.keys(record(e['Subsets']) ?? {})));
    }
    if (e['Kind'] === 'service-defaults' && str(e['Protocol'])) protocols.set(name, String(e['Protocol']));
  }
  return { services, subsets, protocols };
}

/** A service (and maybe subset) an entry sends traffic to. */
interface Target {
  service: At<string>;
  subset?: At<string>;
}

function target(at: At<Json>, serviceKey: string, fallback: string): Target {
  const field = at.field ? `${at.field}.${serviceKey}` : serviceKey;
  const service = text(at, serviceKey) ?? { field, value: fallback };
  const subset = text(at, 'ServiceSubset');
  return { service, ...(subset ? { subset } : {}) };
}

function targetsOf(e: Json): Target[] {
  const name = String(e['Name'] ?? '');
  switch (e['Kind']) {
    case 'service-router':
      return routerMatches(e).flatMap(({ route }) => {
        const d = child(route, 'Destination');
        return d ? [target(d, 'Service', name)] : [];
      });
    case 'service-splitter':
      return objects(e, 'Splits').map((s) => target(s, 'Service', name));
    case 'service-resolver': {
      const redirect = child(root(e), 'Redirect');
      const failovers = Object.keys(record(e['Failover']) ?? {}).map((k) => child(child(root(e), 'Failover'), k)!);
      return [redirect, ...failovers].filter((t) => t !== undefined).map((t) => target(t, 'Service', name));
    }
    case 'ingress-gateway':
      return objects(e, 'Listeners')
        .flatMap((l) => objects(l.value, 'Services', l.field))
        .map((s) => text(s, 'Name'))
        .filter((s): s is At<string> => s !== undefined && s.value !== '*')
        .map((service) => ({ service }));
    case 'terminating-gateway':
      return objects(e, 'Services')
        .map((s) => text(s, 'Name'))
        .filter((s): s is At<string> => s !== undefined && s.value !== '*')
        .map((service) => ({ service }));
    case 'http-route':
      return objects(e, 'Rules')
        .flatMap((r) => objects(r.value, 'Services', r.field))
        .map((s) => text(s, 'Name'))
        .filter((s): s is At<string> => s !== undefined)
        .map((service) => ({ service }));
    default:
      return [];
  }
}

export function checkTargets(e: Json, world: World): Finding[] {
  const out: Finding[] = [];
  const id = entryId(e);
  for (const t of targetsOf(e)) {
    const service = t.service.value;
    if (!world.services.has(service)) {
      const what = `service "${service}" is not registered (nor a virtual service)`;
      out.push(finding('XA0003', id, t.service.field, what));
    } else if (t.subset && !world.subsets.get(service)?.has(t.subset.value)) {
      out.push(finding('XA0004', id, t.subset.field, `service "${service}" defines no subset "${t.subset.value}"`));
    }
  }
  return out;
}

export function checkIntentionNames(e: Json, world: World): Finding[] {
  if (e['Kind'] !== 'service-intentions') return [];
  const id = entryId(e);
  const out: Finding[] = [];
  const name = str(e['Name']);
  if (name && name !== '*' && !world.services.has(name)) {
    out.push(finding('XA0006', id, 'Name', `destination "${name}" is not a registered service`));
  }
  for (const s of objects(e, 'Sources')) {
    const source = text(s, 'Name');
    if (source && source.value !== '*' && !str(s.value['Peer']) && !world.services.has(source.value)) {
      out.push(finding('XA0006', id, source.field, `source "${source.value}" is not a registered service`));
    }
  }
  return out;
}

export function checkChainProtocol(e: Json, world: World): Finding[] {
  if (e['Kind'] !== 'service-router' && e['Kind'] !== 'service-splitter') return [];
  const name = String(e['Name'] ?? '');
  const protocol = world.protocols.get(name) ?? 'tcp';
  if (protocol === 'http' || protocol === 'http2' || protocol === 'grpc') return [];
  return [finding('XA0009', entryId(e), 'Name', `service "${name}" uses protocol "${protocol}"`)];
}
