// Which instances changed between two deliveries of one health view. The view
// delivers its instances sorted by node, then service ID, as frozen objects that
// keep their identity while they do not change (a new delivery is the previous
// array patched), so one merge walk comparing references finds the removed,
// added and replaced instances: a pointer comparison per unchanged instance, and
// keys are compared only where the references differ. This is what lets the
// provider's per-flush work follow what changed (assignment.ts, sidecar/proxies.ts)
// instead of looking at every instance of a touched service again.
import type { CheckServiceNode } from '../../catalog/types';
import { byNodeThenId } from './endpoints';

export interface InstanceDiff {
  /** Instances of `before` that are gone or were replaced (the old objects). */
  removed: CheckServiceNode[];
  /** Instances of `after` that are new or replace one (the new objects). */
  added: CheckServiceNode[];
}

/**
 * The difference between two lists sorted by node, then service ID. Both must be
 * in that order (the health views' contract); a replaced instance is in both lists.
 */
export function diffInstances(before: readonly CheckServiceNode[], after: readonly CheckServiceNode[]): InstanceDiff {
  const removed: CheckServiceNode[] = [];
  const added: CheckServiceNode[] = [];
  if (before === after) return { removed, added };
  let i = 0;
  let j = 0;
  while (i < before.length && j < after.length) {
    const a = before[i]!;
    const b = after[j]!;
    if (a === b) {
      i++;
      j++;
      continue;
    }
    const c = byNodeThenId(a, b);
    if (c <= 0) {
      removed.push(a);
      i++;
    }
    if (c >= 0) {
      added.push(b);
      j++;
    }
  }
  while (i < before.length) removed.push(before[i++]!);
  while (j < after.length) added.push(after[j++]!);
  return { removed, added };
}
