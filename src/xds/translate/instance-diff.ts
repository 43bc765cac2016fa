// Which instances changed between two deliveries of one health view. The view
// records what it patched into each result (changesBetween, in the materializer's
// sorted-sharded.ts), so usually the answer costs what changed. Otherwise (a
// fresh sort in between, arrays from elsewhere): the view delivers its instances
// sorted by node, then service ID, as frozen objects that keep their identity
// while they do not change, so one merge walk comparing references finds the
// removed, added and replaced instances, comparing keys only where the
// references differ. This is what lets the provider's per-flush work follow what
// changed (assignment.ts, sidecar/proxies.ts) instead of looking at every
// instance of a touched service again.
import type { CheckServiceNode } from '../../catalog/types';
import { changesBetween } from '../../materializer/views/sorted-sharded';
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
  if (before === after) return { removed: [], added: [] };
  // Two results of one view: it knows what it patched in between.
  const known = changesBetween(before, after);
  if (known) return known;
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
