// Service health view (Consul's agent/rpcclient/health view): instances of one
// service with their node and checks, keyed like Consul's UniqueID. A Register
// that no longer matches the filter deletes the instance (Consul #12640), so a
// filtered view never keeps a stale member. Results are sorted by node, then
// service ID, built once per index and patched rather than re-sorted.
import { serviceNode } from '../../catalog/service-node';
import type { CheckServiceNode } from '../../catalog/types';
import { CHECK_SERVICE_NODE_FIELDS, compileFilter, SERVICE_NODE_FIELDS } from '../../filter/index';
import { deepFreeze, type View } from '../view';
import { shardedView } from './sorted-sharded';

export interface HealthViewOptions {
  service: string;
  /** ServiceHealthConnect: instances are keyed by destination, so the name is not checked. */
  connect?: boolean;
  /** Every tag required, compared case-insensitively (Consul's ?tag=). */
  tags?: readonly string[];
  /** Only instances whose checks are all passing (Consul's ?passing). */
  passingOnly?: boolean;
  /** Only instances whose node has every key:value (Consul's ?node-meta). */
  nodeMeta?: Readonly<Record<string, string>>;
  /** A ?filter expression, run on the instance (or on its flattened ServiceNode). */
  filter?: string;
  filterOn?: 'check-service-node' | 'service-node';
}

export function instanceKey(csn: CheckServiceNode): string {
  const node = csn.Node;
  const svc = csn.Service;
  return `${node?.Partition ?? svc.Partition ?? ''}/${node?.Node ?? ''}/${svc.Namespace ?? ''}/${svc.ID}`;
}

export function healthMatcher(options: HealthViewOptions): (csn: CheckServiceNode) => boolean {
  const tags = (options.tags ?? []).map((t) => t.toLowerCase());
  const meta = Object.entries(options.nodeMeta ?? {});
  const flat = options.filterOn === 'service-node';
  const filter = options.filter
    ? compileFilter(options.filter, flat ? SERVICE_NODE_FIELDS : CHECK_SERVICE_NODE_FIELDS)
    : undefined;
  return (csn) => {
    if (!options.connect && csn.Service.Service !== options.service) return false;
    if (tags.length > 0) {
      const have = new Set(csn.Service.Tags.map((t) => t.toLowerCase()));
      if (!tags.every((t) => have.has(t))) return false;
    }
    if (options.passingOnly && !csn.Checks.every((c) => c.Status === 'passing')) return false;
    if (meta.length > 0 && !meta.every(([k, v]) => csn.Node.Meta?.[k] === v)) return false;
    if (filter && !filter(flat ? serviceNode(csn) : csn)) return false;
    return true;
  };
}

export function compareInstances(a: CheckServiceNode, b: CheckServiceNode): number {
  const an = a.Node.Node;
  const bn = b.Node.Node;
  if (an !== bn) return an < bn ? -1 : 1;
  const ai = a.Service.ID;
  const bi = b.Service.ID;
  return ai === bi ? 0 : ai < bi ? -1 : 1;
}

export function healthView(options: HealthViewOptions): View<readonly CheckServiceNode[]> {
  const matches = healthMatcher(options);
  // One new version per delivery: a burst or a whole snapshot costs one copy.
  return shardedView('health', 'service-health', compareInstances, (p) => [
    instanceKey(p.csn),
    p.op === 'register' && matches(p.csn) ? deepFreeze(p.csn) : undefined,
  ]);
}
