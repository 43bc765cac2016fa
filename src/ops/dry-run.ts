// Dry run: what a change would do to every node, before it is written. The
// change is applied to a copy of the catalog at the current index, both states
// are translated by a shadow of the live translation (shadow.ts), and each
// connected node (through its subscriptions) and each offline node the history
// knows gets the resources that would be added, removed or changed (with a
// field diff). Nothing is written: the log index does not move.
import type { Catalog } from '../catalog/catalog';
import type { ApplyResult, Command } from '../catalog/commands';
import { createStateMachine } from '../catalog/state';
import type { StateMachine } from '../catalog/state';
import { coveredResources, diffResources, isEmptyDiff, setsOf, type NodeSets, type ResourceDiff } from './diff';
import { identities, type TargetNode } from './nodes';
import type { Shadow } from './shadow';

export interface NodePrediction extends ResourceDiff {
  node: string;
  cluster: string;
  connected: boolean;
}

export interface DryRunAnswer {
  dryRun: true;
  /** The index the change was tried against (the log's, unchanged). */
  index: string;
  /** As the write would answer: false when it would be refused (then `error`). */
  ok: boolean;
  /** False when the write would change nothing (a no-op is not appended, and the index would not move). */
  changes: boolean;
  error?: ApplyResult['error'];
  txnErrors?: ApplyResult['txnErrors'];
  /** Nodes whose resources would change. */
  nodes: NodePrediction[];
  /** Nodes that would see no change. */
  unaffected: string[];
  /** Milliseconds the prediction took. */
  ms: number;
}

/** A copy of the catalog's current state, in a state machine of its own. */
export function copyOf(catalog: Pick<Catalog, 'snapshot'>): StateMachine {
  const sm = createStateMachine();
  sm.restore(catalog.snapshot().state);
  return sm;
}

/** Runs `command` against `base` (which it changes) and predicts each target's diff. The caller serializes use of `shadow`. */
export async function predict(shadow: Shadow, base: StateMachine, command: Command, targets: readonly TargetNode[]): Promise<DryRunAnswer> {
  const started = performance.now();
  const index = base.lastIndex();
  const verdict = base.check(command);
  const answer: DryRunAnswer = { dryRun: true, index: String(index), ok: verdict.result.ok, changes: verdict.result.ok && verdict.changes, nodes: [], unaffected: [], ms: 0 };
  if (!verdict.result.ok) {
    if (verdict.result.error) answer.error = verdict.result.error;
    if (verdict.result.txnErrors) answer.txnErrors = verdict.result.txnErrors;
  }
  if (!verdict.result.ok || !verdict.changes) {
    answer.unaffected = targets.map((t) => t.node.id);
    answer.ms = performance.now() - started;
    return answer;
  }
  await shadow.sync(base);
  const before = targets.map((t) => setsOf(shadow.provider, t.node));
  base.apply(index + 1n, command);
  await shadow.sync(base);
  const after = targets.map((t) => setsOf(shadow.provider, t.node));
  // Nodes that see the same sets through the same subscriptions share one diff.
  const id = identities();
  const setsKey = (s: NodeSets) => `${id(s.clusters)},${id(s.endpoints)},${id(s.listeners)},${id(s.routes)}`;
  const memo = new Map<string, ResourceDiff>();
  targets.forEach((t, i) => {
    const cov = t.coverage === undefined ? '*' : Object.entries(t.coverage).map(([k, subs]) => `${k}:${subs!.map((s) => `${s.wildcard ? 'w' : ''}${id(s.names)}`).join('+')}`).join(';');
    const key = `${setsKey(before[i]!)}|${setsKey(after[i]!)}|${cov}`;
    let diff = memo.get(key);
    if (!diff) memo.set(key, (diff = diffResources(coveredResources(before[i]!, t.coverage), coveredResources(after[i]!, t.coverage))));
    if (isEmptyDiff(diff)) answer.unaffected.push(t.node.id);
    else answer.nodes.push({ node: t.node.id, cluster: t.node.cluster, connected: t.connected, ...diff });
  });
  answer.ms = performance.now() - started;
  return answer;
}
