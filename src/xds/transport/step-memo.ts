// One step per class of streams. The rules are pure (rules/), so streams whose
// rule state is the same value, given the same input, end in the same state and
// send the same response. A fleet of clients that subscribed alike and got the
// same pushes holds one state value between them (a TypeStates, shared), and a
// change pushed to it is decided once per such class, not once per stream: the
// first stream of the class runs the rules, the others take its result.
//
// Three steps are remembered (docs/xds-push.md, "One step per class"):
// - a delivery's change (resourcesChanged), per batch;
// - the next response (nextResponse), during a delivery only: those responses
//   carry a nonce per (delivery, response body) shared by the class (X-STREAM-2
//   holds: a stream takes a remembered response at most once, and nonces come
//   from a counter that only grows), so the whole message is framed once;
// - a bare ACK (settle), by the state it answers and its nonce.
// A step is taken from memory only when everything the rules would read is the
// same: the state value, the stream's profile (variant, transport, API, TTL),
// and, for responses, the very resource sets the provider serves this node.
//
// States that reach equal content by separate paths (each stream's initial
// sync, under its own nonces) are made one value again by interning what a
// remembered step could not give: after an ACK, the state is looked up by its
// content, so the class forms after the first ACK and stays together.
import { WeakValues } from './name-sets';
import type { ResourceSet, XdsNode } from './provider';
import type { Outgoing } from './rules/decide';
import { type StreamState, type Subscription, type TypeState, typeWith } from './stream-state';
import { TypeStates } from './type-states';

/** The prefix of a delivery's nonces (X-STREAM-2: a stream's own are `<id>-<seq>`). */
const DELIVERY_NONCE = 'd';

/** Whether a nonce is a delivery's, shared by a class (a stream's own has a `-`). */
export function isDeliveryNonce(nonce: string): boolean {
  return nonce.startsWith(DELIVERY_NONCE) && !nonce.includes('-');
}

/** What a stream's rule steps depend on besides its types and its node's resources. */
export function profileOf(s: StreamState): string {
  return `${s.variant}|${s.transport}|${s.api}|${s.ttlMs}|${s.sotwWrap ? 1 : 0}`;
}

/** A response step remembered: the sets it read, what it left and what it sent. */
interface ResponseStep {
  profile: string;
  /** The resource sets the rules read, in order: a stream takes the step only if its node is served the same. */
  reads: { typeUrl: string; set: ResourceSet }[];
  types: TypeStates;
  response: Outgoing | undefined;
}

/** An ACK step remembered, for one state value. */
interface AckStep {
  profile: string;
  typeUrl: string;
  nonce: string;
  windowOpen: boolean;
  types: TypeStates;
  /** X-STREAM-4: the changes wait for the next delivery, from this time ('now': the ACK's own time). */
  deferred: number | 'now' | undefined;
}

export class StepMemo {
  private delivering = false;
  private changeKey: { typeUrl: string; names: ReadonlySet<string>; at: number } | undefined;
  private readonly changes = new Map<TypeStates, TypeStates>();
  private readonly responses = new Map<TypeStates, ResponseStep[]>();
  private readonly nonces = new Map<Uint8Array, string>();
  private nonceSeq = 0;
  /** Per state value answered (weak: a step goes with the last stream in that state). */
  private readonly acks = new WeakMap<TypeStates, AckStep>();
  private readonly interned = new Interner();
  /** Instrumentation (tests, bench): steps taken from memory and computed. */
  readonly stats = { hits: 0, misses: 0 };

  /** Response steps and nonces held (instrumentation: none outside a delivery). */
  get held(): number {
    return this.responses.size + this.nonces.size;
  }

  /** A delivery starts: its responses may be shared (their nonces are this delivery's). */
  beginDelivery(): void {
    this.delivering = true;
  }

  /** The delivery's writes are done: its response steps and nonces are forgotten. */
  endDelivery(): void {
    this.delivering = false;
    this.responses.clear();
    this.nonces.clear();
  }

  get inDelivery(): boolean {
    return this.delivering;
  }

  /** The shared nonce of one response body in this delivery (X-STREAM-2: fresh on every stream that gets it). */
  nonceFor(body: Uint8Array): string {
    let n = this.nonces.get(body);
    if (n === undefined) this.nonces.set(body, (n = `${DELIVERY_NONCE}${(++this.nonceSeq).toString(36)}`));
    return n;
  }

  /** A delivery's change applied to `types`, if a stream of the class did it already. */
  changed(types: TypeStates, typeUrl: string, names: ReadonlySet<string>, at: number): TypeStates | undefined {
    const k = this.changeKey;
    if (!k || k.typeUrl !== typeUrl || k.names !== names || k.at !== at) return undefined;
    const hit = this.changes.get(types);
    this.count(hit !== undefined);
    return hit;
  }

  rememberChange(types: TypeStates, typeUrl: string, names: ReadonlySet<string>, at: number, to: TypeStates): void {
    const k = this.changeKey;
    if (!k || k.typeUrl !== typeUrl || k.names !== names || k.at !== at) {
      this.changeKey = { typeUrl, names, at };
      this.changes.clear();
    }
    this.changes.set(types, to);
  }

  /** The next response step of a stream in `types`, if a stream of the class took it in this delivery. */
  response(
    types: TypeStates,
    profile: string,
    node: XdsNode,
    get: (typeUrl: string, node: XdsNode) => ResourceSet,
  ): ResponseStep | undefined {
    if (!this.delivering) return undefined;
    const steps = this.responses.get(types);
    if (steps)
      for (const step of steps) {
        if (step.profile !== profile) continue;
        let same = true;
        for (const r of step.reads)
          if (get(r.typeUrl, node) !== r.set) {
            same = false;
            break;
          }
        if (same) {
          this.count(true);
          return step;
        }
      }
    this.count(false);
    return undefined;
  }

  rememberResponse(types: TypeStates, step: ResponseStep): void {
    if (!this.delivering) return;
    let steps = this.responses.get(types);
    if (!steps) this.responses.set(types, (steps = []));
    steps.push(step);
  }

  /** A bare ACK of `nonce` on `typeUrl` by a stream in `types`, if a stream of the class answered alike. */
  ack(types: TypeStates, profile: string, typeUrl: string, nonce: string, windowOpen: boolean): AckStep | undefined {
    const a = this.acks.get(types);
    const hit =
      a !== undefined &&
      a.profile === profile &&
      a.typeUrl === typeUrl &&
      a.nonce === nonce &&
      a.windowOpen === windowOpen;
    this.count(hit);
    return hit ? a : undefined;
  }

  rememberAck(types: TypeStates, step: AckStep): void {
    this.acks.set(types, step);
  }

  /** The one value of this content (a state reached by another path than its class's). */
  intern(types: TypeStates): TypeStates {
    return this.interned.types(types);
  }

  private count(hit: boolean): void {
    if (hit) this.stats.hits++;
    else this.stats.misses++;
  }
}

export type { AckStep, ResponseStep };

/**
 * Content interning of settled rule state, by the identity of what it holds:
 * the pieces a state points at (name sets, held versions, shared maps) are
 * already shared between streams, so two states of equal content point at the
 * same pieces, and a key of their identities finds the one value. Only settled
 * states are interned (nothing pending, dirty or forced: what a class holds
 * between pushes); the others carry a stream's own sets and nonce and pass on.
 * Values are held weakly: one goes with the last stream holding it.
 */
class Interner {
  private readonly ids = new WeakMap<object, number>();
  private nextId = 1;
  private readonly subs = new WeakValues<Subscription>();
  private readonly states = new WeakValues<TypeState>();
  private readonly lists = new WeakValues<TypeStates>();

  private id(o: object | undefined): number {
    if (o === undefined) return 0;
    let n = this.ids.get(o);
    if (n === undefined) this.ids.set(o, (n = this.nextId++));
    return n;
  }

  /** `t`'s one value when every state in it is settled; else `t` (a class forms again once it settles). */
  types(t: TypeStates): TypeStates {
    let key = '';
    let changed = false;
    const states: TypeState[] = [];
    for (let i = 0; i < t.size; i++) {
      const st = t.stateAt(i);
      if (!settled(st)) return t;
      const one = this.state(st);
      if (one !== st) changed = true;
      states.push(one);
      key += `${t.urlAt(i)}#${this.id(one)};`;
    }
    return this.lists.intern(key, changed ? TypeStates.from(t, states) : t);
  }

  private sub(s: Subscription): Subscription {
    return this.subs.intern(`${this.id(s.names)}|${s.wildcard ? 1 : 0}|${s.everNamed ? 1 : 0}`, s);
  }

  private state(st: TypeState): TypeState {
    const sub = this.sub(st.sub);
    // Every field (the compiler checks none is missed: a new one breaks this list's type).
    const fields: { [K in keyof TypeState]-?: string | number } = {
      type: this.id(st.type),
      wireTypeUrl: st.wireTypeUrl,
      sub: this.id(sub),
      started: st.started ? 1 : 0,
      answered: st.answered ? 1 : 0,
      acked: this.id(st.acked),
      ackedVersion: st.ackedVersion,
      ackedResources: this.id(st.ackedResources),
      lastSentVersion: st.lastSentVersion,
      rejected: this.id(st.rejected),
      pending: this.id(st.pending),
      dirty: st.dirty ? 1 : 0,
      holding: st.holding ? 1 : 0,
      changed: st.changed === 'all' ? 'all' : this.id(st.changed),
      force: this.id(st.force),
      forceAll: st.forceAll ? 1 : 0,
      lastNack: this.id(st.lastNack),
      changeAt: st.changeAt ?? '-',
      unacked: st.unacked,
    };
    return this.states.intern(Object.values(fields).join('\u0001'), sub === st.sub ? st : typeWith(st, { sub }));
  }
}

/** Nothing in flight, waiting or forced: the state a class holds between pushes. */
function settled(st: TypeState): boolean {
  return (
    st.pending === undefined &&
    !st.dirty &&
    !st.holding &&
    st.changed !== 'all' &&
    st.changed.size === 0 &&
    st.force.size === 0
  );
}
