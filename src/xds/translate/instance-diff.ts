// Which instances changed between two deliveries of one health view. The view
// records what changed between its results (changesBetween, in the materializer's
// sorted-sharded.ts), so usually the answer costs what changed, and the sorted
// array of a delivery is never built. Otherwise (a reset in between, results
// from elsewhere): the view delivers its instances
// sorted by node, then service ID, as frozen objects that keep their identity
// while they do not change, so one merge walk comparing references finds the
// removed, added and replaced instances, comparing keys only where the
// references differ. This is what lets the provider's per-flush work follow what
// changed (assignment.ts, sidecar/proxies.ts) instead of looking at every
// instance of a touched service again.
import type { CheckServiceNode } from '../../catalog/types';
import { changesBetween, sizeOf } from '../../materializer/views/sorted-sharded';
import { byNodeThenId } from './endpoints';

/**
 * A service's instances as one delivery of its health view: the view's result
 * itself, whose `value` (the sorted array) a health view builds only when it is
 * first read. The provider reads it only where it needs every instance; what
 * changed between two deliveries it asks the view (diffInstances).
 */
export interface Instances {
  readonly value: readonly CheckServiceNode[];
}

export const NO_INSTANCES: Instances = Object.freeze({ value: Object.freeze([]) as readonly CheckServiceNode[] });

/** No instances, known without building the array when the view can tell. */
export function noInstances(instances: Instances): boolean {
  return (sizeOf(instances) ?? instances.value.length) === 0;
}

export interface InstanceDiff {
  /** Instances of `before` that are gone or were replaced (the old objects). */
  removed: CheckServiceNode[];
  /** Instances of `after` that are new or replace one (the new objects). */
  added: CheckServiceNode[];
}

/**
 * The difference between two deliveries, each sorted by node, then service ID
 * (the health views' contract); a replaced instance is in both lists.
 */
export function diffInstances(from: Instances, to: Instances): InstanceDiff {
  if (from === to) return { removed: [], added: [] };
  // Two results of one view: it knows what changed in between.
  const known = changesBetween<CheckServiceNode>(from, to);
  if (known) return known;
  const before = from.value;
  const after = to.value;
  if (before === after) return { removed: [], added: [] };
  const removed: CheckServiceNode[] = [];
  const added: CheckServiceNode[] = [];
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
