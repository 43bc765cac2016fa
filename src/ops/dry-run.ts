// Dry run: what a change would do to every node, before it is written. The
// change is applied to a copy of the catalog at the current index, both states
// are translated by a shadow of the live translation (shadow.ts), and each
// connected node (through its subscriptions) and each offline node the history
// knows gets the resources that would be added, removed or changed (with a
// field diff), the subscriptions the change makes it take or drop
// (subscriptions.ts), and, with an Envoy binary configured, Envoy's own verdict
// on what Envoys would receive (envoy-validate.ts). Nothing is written: the
// log index does not move.
import type { Catalog } from '../catalog/catalog';
import type { ApplyResult, Command } from '../catalog/commands';
import type { StateMachine } from '../catalog/state';
import {
  coveredResources,
  diffResources,
  isEmptyDiff,
  type NodeResources,
  type NodeSets,
  type ResourceDiff,
  setsOf,
} from './diff';
import { type EnvoyVerdict, validateChanges } from './envoy-validate';
import { identities, type TargetNode } from './nodes';
import { type Shadow, type ViewTag, viewTags } from './shadow';
import { isEmptyChange, type SubscriptionChange, subscriptionChange } from './subscriptions';

/** Envoy's verdict, or why it could not be had (the binary did not finish). */
export type GroupVerdict = EnvoyVerdict | { ok: false; error: string; ms: number };

/** One distinct diff and the nodes that would get it. */
export interface DiffGroup extends ResourceDiff, SubscriptionChange {
  /** Node ids, sorted. */
  nodes: string[];
  /** With an Envoy binary configured, on groups of Envoys: Envoy's verdict on what they would receive. */
  envoy?: GroupVerdict;
}

export interface PredictOptions {
  /** An Envoy binary: each group of Envoys gets its verdict on the added, changed and newly subscribed resources. */
  envoyBinary?: string;
}

/** Proxyless gRPC clients say `grpc-…` here; only Envoys are checked by Envoy. */
export const isEnvoy = (t: TargetNode) => t.node.userAgent === 'envoy';

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
  /**
   * Each distinct diff once, with the nodes that would get it: a fleet that
   * sees the same change is one entry, not one per node. Most nodes first.
   */
  diffs: DiffGroup[];
  /** Nodes that would see no change. */
  unaffected: string[];
  /** The nodes above (in `diffs` or `unaffected`) that are not connected: the history knows them; their diff is against everything they would be offered. */
  offline: string[];
  /** Milliseconds the prediction took (copying the state, translating, diffing, asking Envoy; not the HTTP answer). */
  ms: number;
}

/**
 * Runs `command` against `base` (which it changes) and predicts each target's
 * diff. The caller serializes use of `shadow`. `stale`: the views in which
 * `base` may differ from the shadow's last state (all when absent). Returns the
 * views the shadow now differs from `base` before the command in `changedViews`.
 */
export async function predict(
  shadow: Shadow,
  base: StateMachine,
  command: Command,
  targets: readonly TargetNode[],
  stale?: ReadonlySet<ViewTag>,
  options: PredictOptions = {},
): Promise<DryRunAnswer & { changedViews?: Set<ViewTag> }> {
  const started = performance.now();
  const index = base.lastIndex();
  const verdict = base.check(command);
  const answer: DryRunAnswer = {
    dryRun: true,
    index: String(index),
    ok: verdict.result.ok,
    changes: verdict.result.ok && verdict.changes,
    diffs: [],
    unaffected: [],
    offline: targets.filter((t) => !t.connected).map((t) => t.node.id),
    ms: 0,
  };
  if (!verdict.result.ok) {
    if (verdict.result.error) answer.error = verdict.result.error;
    if (verdict.result.txnErrors) answer.txnErrors = verdict.result.txnErrors;
  }
  if (!verdict.result.ok || !verdict.changes) {
    answer.unaffected = targets.map((t) => t.node.id);
    answer.ms = performance.now() - started;
    return answer;
  }
  await shadow.sync(base, stale);
  const before = targets.map((t) => setsOf(shadow.provider, t.node));
  const changedViews = viewTags(base.apply(index + 1n, command).events);
  await shadow.sync(base, changedViews, true); // keeps what the change itself makes depart, as the live hub does
  const after = targets.map((t) => setsOf(shadow.provider, t.node));
  const { groups, unaffected, checks } = groupDiffs(targets, before, after, options.envoyBinary !== undefined);
  answer.unaffected = unaffected;
  if (options.envoyBinary) await checkEnvoys(options.envoyBinary, checks);
  answer.diffs = [...groups.values()].sort(
    (a, b) => b.nodes.length - a.nodes.length || (a.nodes[0]! < b.nodes[0]! ? -1 : 1),
  );
  answer.ms = performance.now() - started;
  return { ...answer, changedViews };
}

/**
 * What Envoy is asked about for one group: what its first node would hold after
 * the change and what it would be sent (added, changed, and newly subscribed to).
 */
interface EnvoyCheck {
  group: DiffGroup;
  after: NodeResources;
  diff: ResourceDiff;
}

function envoyCheck(group: DiffGroup, covered: NodeResources, sets: NodeSets): EnvoyCheck {
  const after: NodeResources = { ...covered };
  const added = [...group.added];
  for (const s of group.subscribes) {
    const res = sets[s.type].byName.get(s.name);
    if (!res) continue;
    after[s.type] = new Map(after[s.type]).set(s.name, res);
    added.push({ type: s.type, name: s.name, version: res.version });
  }
  return { group, after, diff: { added, removed: group.removed, changed: group.changed } };
}

/**
 * Nodes that see the same sets through the same subscriptions share one computed diff;
 * nodes whose diffs (and new subscriptions, and kind, when Envoys are checked) read the
 * same share one entry of the answer.
 */
function groupDiffs(targets: readonly TargetNode[], before: NodeSets[], after: NodeSets[], byKind: boolean) {
  const id = identities();
  const setsKey = (s: NodeSets) => `${id(s.clusters)},${id(s.endpoints)},${id(s.listeners)},${id(s.routes)}`;
  const memo = new Map<string, DiffGroup | null>();
  const groups = new Map<string, DiffGroup>();
  const checks: EnvoyCheck[] = [];
  const unaffected: string[] = [];
  targets.forEach((t, i) => {
    const cov =
      t.coverage === undefined
        ? '*'
        : Object.entries(t.coverage)
            .map(([k, subs]) => `${k}:${subs!.map((s) => `${s.wildcard ? 'w' : ''}${id(s.names)}`).join('+')}`)
            .join(';');
    const envoy = byKind && isEnvoy(t);
    const key = `${setsKey(before[i]!)}|${setsKey(after[i]!)}|${cov}|${envoy}`;
    let group = memo.get(key);
    if (group === undefined) {
      const covered = coveredResources(after[i]!, t.coverage);
      const diff = diffResources(coveredResources(before[i]!, t.coverage), covered);
      const subs = subscriptionChange(before[i]!, after[i]!, t.coverage);
      if (isEmptyDiff(diff) && isEmptyChange(subs)) group = null;
      else {
        const text = JSON.stringify({ diff, subs, envoy });
        group = groups.get(text);
        if (!group) {
          groups.set(text, (group = { nodes: [], ...diff, ...subs }));
          if (envoy) checks.push(envoyCheck(group, covered, after[i]!));
        }
      }
      memo.set(key, group);
    }
    if (group) group.nodes.push(t.node.id);
    else unaffected.push(t.node.id);
  });
  return { groups, unaffected, checks };
}

/** Envoy's verdict on each group of Envoys, two Envoy runs at a time. */
async function checkEnvoys(binary: string, checks: EnvoyCheck[]): Promise<void> {
  const queue = [...checks];
  const worker = async () => {
    for (let c = queue.shift(); c; c = queue.shift()) {
      const started = performance.now();
      try {
        c.group.envoy = await validateChanges(binary, c.after, c.diff);
      } catch (err) {
        c.group.envoy = { ok: false, error: (err as Error).message, ms: performance.now() - started };
      }
    }
  };
  await Promise.all([worker(), worker()]);
}

export interface DryRunner {
  run(command: Command, targets: readonly TargetNode[]): Promise<DryRunAnswer>;
  close(): void;
}

/**
 * Dry runs one at a time on one shadow that follows the catalog: it remembers
 * which views changed since its last state (catalog entries applied since, and
 * the last dry run's own change), so each run re-reads only those.
 */
export function createDryRunner(catalog: Catalog, newShadow: () => Shadow, options: PredictOptions = {}): DryRunner {
  let shadow: Shadow | undefined;
  let stale: Set<ViewTag> | undefined; // undefined: everything
  const stop = catalog.onApplied((_i, events) => {
    if (stale) for (const t of viewTags(events)) stale.add(t);
  });
  let queue: Promise<unknown> = Promise.resolve();
  return {
    run(command, targets) {
      const run = queue.then(async () => {
        shadow ??= newShadow();
        const started = performance.now();
        // The copy and the set of stale views are taken in the same turn: entries applied later mark the next run.
        const base = catalog.fork();
        const since = stale;
        stale = new Set();
        try {
          const { changedViews, ...answer } = await predict(shadow, base, command, targets, since, options);
          if (changedViews) for (const t of changedViews) stale.add(t);
          // Nothing was synced (a refusal or a no-op): what was stale still is.
          else if (since === undefined) stale = undefined;
          else for (const t of since) stale.add(t);
          // The copy of the state counts too.
          return { ...answer, ms: performance.now() - started };
        } catch (err) {
          stale = undefined;
          throw err;
        }
      });
      queue = run.catch(() => undefined);
      return run;
    },
    close() {
      stop();
      shadow?.close();
    },
  };
}

/**
 * Why Envoy rejects what a dry run would send the Envoys, as one line (a
 * rollout's reason): each rejecting group's nodes and Envoy's messages, or
 * that the validation did not finish. Null when every group of Envoys passes.
 */
export function envoyRejection(answer: DryRunAnswer): string | null {
  const parts: string[] = [];
  for (const g of answer.diffs) {
    const v = g.envoy;
    if (!v || v.ok) continue;
    const nodes =
      g.nodes.length > 3 ? `${g.nodes.slice(0, 3).join(', ')} and ${g.nodes.length - 3} more` : g.nodes.join(', ');
    const why =
      'error' in v
        ? `validation did not finish: ${v.error}`
        : v.rejected.map((r) => (r.name ? `${r.type} ${r.name}: ${r.message}` : r.message)).join('; ');
    parts.push(`Envoy rejects what ${nodes} would get: ${why}`);
  }
  return parts.length ? parts.join(' | ') : null;
}
