// Service health view (Consul's agent/rpcclient/health view): instances of one
// service with their node and checks, keyed like Consul's UniqueID. A Register
// that no longer matches the filter deletes the instance (Consul #12640), so a
// filtered view never keeps a stale member. Results are sorted by node, then
// service ID, built once per index and patched rather than re-sorted.
import type { CheckServiceNode } from '../../catalog/types';
import { type View, deepFreeze } from '../view';
import { shardedView } from './sorted-sharded';

export interface HealthViewOptions {
  service: string;
  /** ServiceHealthConnect: instances are keyed by destination, so the name is not checked. */
  connect?: boolean;
  /** Every tag required, compared case-insensitively (Consul's ?tag=). */
  tags?: readonly string[];
  /** Only instances whose checks are all passing (Consul's ?passing). */
  passingOnly?: boolean;
}

export function instanceKey(csn: CheckServiceNode): string {
  const node = csn.Node;
  const svc = csn.Service;
  return `${node?.Partition ?? svc.Partition ?? ''}/${node?.Node ?? ''}/${svc.Namespace ?? ''}/${svc.ID}`;
}

export function healthMatcher(options: HealthViewOptions): (csn: CheckServiceNode) => boolean {
  const tags = (options.tags ?? []).map((t) => t.toLowerCase());
  return (csn) => {
    if (!options.connect && csn.Service.Service !== options.service) return false;
    if (tags.length > 0) {
      const have = new Set(csn.Service.Tags.map((t) => t.toLowerCase()));
      if (!tags.every((t) => have.has(t))) return false;
    }
    if (options.passingOnly && !csn.Checks.every((c) => c.Status === 'passing')) return false;
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
