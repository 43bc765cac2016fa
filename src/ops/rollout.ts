// Staged rollouts. A change sent with `X-Xdshub-Rollout: canary=N,window=30s`
// is written to the log as usual, but only N canary nodes see it at first:
// every other node is served from a pinned translation of the state just
// before the change (a shadow, shadow.ts). Both the pinned and the live
// translation are whole, consistent states, so a held node never mixes old and
// new resources; moving it from one to the other later is an ordinary update,
// pushed in the transport's make-before-break order.
//
// A NACK from a canary within the window, or a check of a named service turning
// critical, stops the rollout: the others stay pinned ("held") until the
// operator rolls back (the inverse change is written, then the hold is
// released) or proceeds. A quiet window releases the hold: everyone moves on.
//
// With an Envoy binary configured, the change is first put to Envoy's own
// validation (the dry run's verdict, envoy-validate.ts): a change Envoy rejects
// is refused before anything is held or written, so no node receives it.
import type { Catalog } from '../catalog/catalog';
import type { Command } from '../catalog/commands';
import type { StateMachine } from '../catalog/state';
import { parseDurationMs } from '../config';
import { HubError, invalid } from '../errors';
import type { AnswerEvent } from '../xds/transport/callbacks';
import type { ResourceChange, ResourceProvider, XdsNode } from '../xds/transport/provider';
import { RESOURCE_TYPES } from '../xds/transport/resource-types';
import { inverseOf } from './inverse';
import type { Shadow } from './shadow';

export interface RolloutSpec {
  canary: number;
  windowMs: number;
  /** Which nodes are canaries: node ids matching a glob, nodes of a cluster, or any (random). */
  select: { kind: 'id'; glob: string } | { kind: 'cluster'; cluster: string } | { kind: 'random' };
  /** Services whose checks turning critical stop the rollout. */
  health: string[];
}

export type RolloutState = 'canary' | 'held' | 'completed' | 'rolled-back' | 'refused';

export interface Rollout {
  id: string;
  state: RolloutState;
  spec: RolloutSpec;
  command: Command;
  /** The index of the change, and of the state held nodes are pinned at. */
  index: string | null;
  pinnedIndex: string;
  canaries: string[];
  startedAt: string;
  endsAt: string;
  reason: string | null;
  rollbackIndex: string | null;
}

/** `canary=2,window=30s,select=id:web-*|cluster:NAME|random,health=svc1+svc2`. */
export function parseRolloutSpec(text: string, field = 'X-Xdshub-Rollout'): RolloutSpec {
  const spec: RolloutSpec = { canary: 0, windowMs: 30_000, select: { kind: 'random' }, health: [] };
  let sawCanary = false;
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const eq = part.indexOf('=');
    const key = eq < 0 ? part : part.slice(0, eq);
    const value = eq < 0 ? '' : part.slice(eq + 1);
    if (key === 'canary') {
      if (!/^\d+$/.test(value) || Number(value) < 1)
        throw invalid(field, `canary: expected a number of nodes ≥ 1, got "${value}"`);
      spec.canary = Number(value);
      sawCanary = true;
    } else if (key === 'window') spec.windowMs = parseDurationMs(value, `${field} window`);
    else if (key === 'select') {
      if (value === 'random') spec.select = { kind: 'random' };
      else if (value.startsWith('id:') && value.length > 3) spec.select = { kind: 'id', glob: value.slice(3) };
      else if (value.startsWith('cluster:') && value.length > 8)
        spec.select = { kind: 'cluster', cluster: value.slice(8) };
      else throw invalid(field, `select: expected id:GLOB, cluster:NAME or random, got "${value}"`);
    } else if (key === 'health') spec.health = value.split('+').filter(Boolean);
    else throw invalid(field, `unknown option "${key}" (canary, window, select, health)`);
  }
  if (!sawCanary) throw invalid(field, 'canary=N is required');
  return spec;
}

function globMatch(glob: string, text: string): boolean {
  const re = new RegExp(
    `^${glob
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
  );
  return re.test(text);
}

/** Picks up to `spec.canary` of the connected nodes. */
export function pickCanaries(
  spec: RolloutSpec,
  nodes: readonly XdsNode[],
  random: () => number = Math.random,
): string[] {
  const eligible = nodes.filter((n) =>
    spec.select.kind === 'id'
      ? globMatch(spec.select.glob, n.id)
      : spec.select.kind === 'cluster'
        ? n.cluster === spec.select.cluster
        : true,
  );
  const ids = [...new Set(eligible.map((n) => n.id))].sort();
  if (spec.select.kind === 'random') {
    for (let i = ids.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [ids[i], ids[j]] = [ids[j]!, ids[i]!];
    }
  }
  return ids.slice(0, spec.canary);
}

export interface RolloutDeps {
  catalog: Catalog;
  /** The live provider (with per-client config sources). */
  live: ResourceProvider;
  /** Ids of the nodes connected now. */
  connected(): XdsNode[];
  /** A fresh shadow for a pinned state. */
  shadow(): Shadow;
  /** Told of every state change (events, metrics). */
  changed(r: Rollout): void;
  /** Resolves once the live translation includes log index `index` (index-tracker.ts). */
  translated(index: bigint): Promise<void>;
  /** Why Envoy rejects what `command` would send the Envoys (null: it takes it). Absent: no Envoy binary configured. */
  validate?(command: Command): Promise<string | null>;
  now?(): number;
}

/** A rollout refused by Envoy's validation: recorded (state `refused`), nothing held or written; `400`. */
export class RolloutRefused extends HubError {
  constructor(readonly rollout: Rollout) {
    super('INVALID_ARGUMENT', `rollout ${rollout.id} refused, nothing was written: ${rollout.reason}`);
  }
}

export interface Rollouts {
  /** The provider the xDS server serves: the live one, except for held nodes. */
  readonly provider: ResourceProvider;
  /** Writes `command` as a staged rollout; resolves with the write's result and the rollout. */
  run(
    spec: RolloutSpec,
    command: Command,
    submit: () => ReturnType<Catalog['submit']>,
  ): Promise<{ result: Awaited<ReturnType<Catalog['submit']>>; rollout: Rollout }>;
  /** The observer's view of answers: a NACK from a canary stops its rollout. */
  answered(e: AnswerEvent): void;
  rollback(id: string): Promise<Rollout>;
  proceed(id: string): Rollout;
  /** Newest first, each with the connected nodes it holds on its pinned state now. */
  list(): RolloutView[];
  get(id: string): RolloutView | undefined;
  /** The rollout serving `node` its pinned state, if one does. */
  pinnedFor(node: XdsNode): { rollout: string; index: string } | null;
  close(): void;
}

/** A rollout as the API shows it: `held` lists the connected nodes served its pinned state now (none once released). */
export type RolloutView = Rollout & { held: string[] };

interface Active {
  rollout: Rollout;
  pinned: Shadow;
  canaries: Set<string>;
  before: StateMachine;
  timer: NodeJS.Timeout | undefined;
  stopHealth: () => void;
  criticalAtStart: Set<string>;
}

const KEEP = 50;

/** What the parts of a rollout share: the one active rollout, the last KEEP, and who listens for changes. */
interface Ctx {
  deps: RolloutDeps;
  listeners: Set<(c: readonly ResourceChange[]) => void>;
  history: Rollout[];
  active: Active | undefined;
  /** Set while a change is with Envoy's validation: it counts as the one rollout in progress. */
  validating: boolean;
  nextId: number;
}

const isHeld = (ctx: Ctx, node: XdsNode) => ctx.active !== undefined && !ctx.active.canaries.has(node.id);

/** Every name of every type: the held nodes' whole view moves (pinned ↔ live); streams send only what differs. */
function everything(ctx: Ctx): ResourceChange[] {
  const probe: XdsNode = { id: '', cluster: '', clientFeatures: [], userAgent: '' };
  return RESOURCE_TYPES.map((t) => {
    const seen = new Set<object>();
    const names = new Set<string>();
    // Sets are shared between nodes: each distinct one (gateways have their own) is read once.
    for (const node of [probe, ...ctx.deps.connected()]) {
      for (const set of [ctx.deps.live.get(t.typeUrl, node), ctx.active?.pinned.provider.get(t.typeUrl, node)]) {
        if (!set || seen.has(set)) continue;
        seen.add(set);
        for (const n of set.byName.keys()) names.add(n);
      }
    }
    return { typeUrl: t.typeUrl, names };
  });
}

function announce(ctx: Ctx, changes: readonly ResourceChange[]): void {
  for (const l of ctx.listeners) l(changes);
}

function holdingProvider(ctx: Ctx): ResourceProvider {
  return {
    get: (typeUrl, node) =>
      isHeld(ctx, node) ? ctx.active!.pinned.provider.get(typeUrl, node) : ctx.deps.live.get(typeUrl, node),
    onChange(listener) {
      ctx.listeners.add(listener);
      const off = ctx.deps.live.onChange(listener);
      return () => {
        ctx.listeners.delete(listener);
        off();
      };
    },
  };
}

function criticalChecks(catalog: Catalog, services: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const s of services)
    for (const c of catalog.serviceChecks(s).value) if (c.Status === 'critical') out.add(`${c.Node}/${c.CheckID}`);
  return out;
}

function stop(ctx: Ctx, a: Active, reason: string): void {
  if (a.rollout.state !== 'canary') return;
  if (a.timer) clearTimeout(a.timer);
  a.rollout.state = 'held';
  a.rollout.reason = reason;
  ctx.deps.changed(a.rollout);
}

function release(ctx: Ctx, a: Active, state: RolloutState): void {
  if (a.timer) clearTimeout(a.timer);
  a.stopHealth();
  a.rollout.state = state;
  // Gather the names while the pinned view still answers, then switch everyone to live.
  const changes = everything(ctx);
  ctx.active = undefined;
  announce(ctx, changes);
  a.pinned.close();
  ctx.deps.changed(a.rollout);
}

function find(ctx: Ctx, id: string): Active {
  if (ctx.active?.rollout.id === id) return ctx.active;
  const done = ctx.history.find((r) => r.id === id);
  if (!done) throw new HubError('NOT_FOUND', `no rollout "${id}"`);
  throw new HubError(
    'CONFLICT',
    `rollout ${id} is ${done.state}; only a rollout in canary or held state can be changed`,
  );
}

const STAGED = ['register', 'deregister', 'config-set', 'config-delete', 'txn'];

function selectorText(spec: RolloutSpec): string {
  return spec.select.kind === 'id'
    ? `id:${spec.select.glob}`
    : spec.select.kind === 'cluster'
      ? `cluster:${spec.select.cluster}`
      : 'random';
}

/**
 * Refused before anything is held or written: another rollout in progress, a
 * change that cannot be staged, or no connected node to be a canary (the change
 * would be tested by nobody, and reach everyone when the window ends).
 */
function admit(ctx: Ctx, spec: RolloutSpec, command: Command): string[] {
  const a = ctx.active;
  if (a)
    throw new HubError(
      'CONFLICT',
      `rollout ${a.rollout.id} is ${a.rollout.state}; roll it back or let it proceed first`,
    );
  if (ctx.validating) throw new HubError('CONFLICT', "another rollout's change is with Envoy's validation");
  if (!STAGED.includes(command.type))
    throw invalid('X-Xdshub-Rollout', `a ${command.type} change cannot be rolled out in stages`);
  const canaries = pickCanaries(spec, ctx.deps.connected());
  if (canaries.length === 0) {
    throw new HubError(
      'CONFLICT',
      `no connected node matches select=${selectorText(spec)}: no canary would test the change, ` +
        'so nothing was written; connect a canary or choose another select=',
    );
  }
  return canaries;
}

function newRollout(ctx: Ctx, spec: RolloutSpec, command: Command, canaries: string[], pinnedIndex: bigint): Rollout {
  const started = ctx.deps.now?.() ?? Date.now();
  return {
    id: `r${ctx.nextId++}-${started.toString(36)}`,
    state: 'canary',
    spec,
    command,
    index: null,
    pinnedIndex: String(pinnedIndex),
    canaries,
    startedAt: new Date(started).toISOString(),
    endsAt: new Date(started + spec.windowMs).toISOString(),
    reason: null,
    rollbackIndex: null,
  };
}

function remember(ctx: Ctx, rollout: Rollout): void {
  ctx.history.push(rollout);
  if (ctx.history.length > KEEP) ctx.history.shift();
}

/** Envoy's verdict before anything is held: a rejection is recorded as a refused rollout and thrown. */
async function validated(ctx: Ctx, spec: RolloutSpec, command: Command, canaries: string[]): Promise<void> {
  if (!ctx.deps.validate) return;
  ctx.validating = true;
  let why: string | null;
  try {
    why = await ctx.deps.validate(command);
  } catch (err) {
    why = `Envoy's validation did not finish: ${(err as Error).message}`;
  } finally {
    ctx.validating = false;
  }
  if (why === null) return;
  const rollout = newRollout(ctx, spec, command, canaries, ctx.deps.catalog.lastIndex());
  rollout.state = 'refused';
  rollout.reason = why;
  remember(ctx, rollout);
  ctx.deps.changed(rollout);
  throw new RolloutRefused(rollout);
}

async function begin(ctx: Ctx, spec: RolloutSpec, command: Command, canaries: string[]): Promise<Active> {
  const before = ctx.deps.catalog.fork();
  const pinned = ctx.deps.shadow();
  await pinned.sync(before);
  const rollout = newRollout(ctx, spec, command, canaries, before.lastIndex());
  const a: Active = {
    rollout,
    pinned,
    canaries: new Set(canaries),
    before,
    timer: undefined,
    stopHealth: () => {},
    criticalAtStart: criticalChecks(ctx.deps.catalog, spec.health),
  };
  // The hold is in place before the change can reach anyone.
  ctx.active = a;
  remember(ctx, rollout);
  announce(ctx, everything(ctx));
  return a;
}

/** After the write: watch the named services' checks and the window. */
function watch(ctx: Ctx, a: Active, index: bigint): void {
  const { rollout } = a;
  rollout.index = String(index);
  if (rollout.spec.health.length > 0) {
    a.stopHealth = ctx.deps.catalog.onApplied(() => {
      const critical = [...criticalChecks(ctx.deps.catalog, rollout.spec.health)].filter(
        (c) => !a.criticalAtStart.has(c),
      );
      if (critical.length > 0) stop(ctx, a, `health: ${critical.join(', ')} turned critical`);
    });
  }
  a.timer = setTimeout(() => {
    if (ctx.active === a && rollout.state === 'canary') release(ctx, a, 'completed');
  }, rollout.spec.windowMs);
  ctx.deps.changed(rollout);
}

const run: (ctx: Ctx) => Rollouts['run'] = (ctx) => async (spec, command, submit) => {
  const canaries = admit(ctx, spec, command);
  await validated(ctx, spec, command, canaries);
  const a = await begin(ctx, spec, command, canaries);
  let result: Awaited<ReturnType<typeof submit>>;
  try {
    result = await submit();
  } catch (err) {
    release(ctx, a, 'refused');
    throw err;
  }
  if (!result.ok) {
    a.rollout.reason = result.error?.message ?? 'refused';
    release(ctx, a, 'refused');
  } else watch(ctx, a, result.index);
  return { result, rollout: a.rollout };
};

function answered(ctx: Ctx, e: AnswerEvent): void {
  const a = ctx.active;
  if (a?.rollout.state !== 'canary' || !e.error || !a.canaries.has(e.node.id) || a.rollout.index === null) return;
  const type = RESOURCE_TYPES.find((t) => t.typeUrl === e.typeUrl)?.short ?? e.typeUrl;
  stop(ctx, a, `NACK from ${e.node.id} (${type}): ${e.error.message}`);
}

async function rollback(ctx: Ctx, id: string): Promise<Rollout> {
  const a = find(ctx, id);
  const result = await ctx.deps.catalog.submit(inverseOf(a.before, a.rollout.command));
  if (!result.ok)
    throw new HubError('CONFLICT', `the inverse change was refused: ${result.error?.message ?? 'unknown reason'}`);
  a.rollout.rollbackIndex = String(result.index);
  // Held nodes move to live only once live no longer carries the change.
  await ctx.deps.translated(result.index);
  release(ctx, a, 'rolled-back');
  return a.rollout;
}

function view(ctx: Ctx, r: Rollout): RolloutView {
  const held =
    ctx.active?.rollout === r
      ? [
          ...new Set(
            ctx.deps
              .connected()
              .filter((n) => isHeld(ctx, n))
              .map((n) => n.id),
          ),
        ].sort()
      : [];
  return { ...r, held };
}

export function createRollouts(deps: RolloutDeps): Rollouts {
  const ctx: Ctx = { deps, listeners: new Set(), history: [], active: undefined, validating: false, nextId: 1 };
  return {
    provider: holdingProvider(ctx),
    run: run(ctx),
    answered: (e) => answered(ctx, e),
    rollback: (id) => rollback(ctx, id),
    proceed(id) {
      const a = find(ctx, id);
      release(ctx, a, 'completed');
      return a.rollout;
    },
    list: () => [...ctx.history].reverse().map((r) => view(ctx, r)),
    get(id) {
      const r = ctx.history.find((x) => x.id === id);
      return r && view(ctx, r);
    },
    pinnedFor: (node) =>
      ctx.active && isHeld(ctx, node)
        ? { rollout: ctx.active.rollout.id, index: ctx.active.rollout.pinnedIndex }
        : null,
    close() {
      const a = ctx.active;
      if (!a) return;
      if (a.timer) clearTimeout(a.timer);
      a.stopHealth();
      a.pinned.close();
      ctx.active = undefined;
    },
  };
}
