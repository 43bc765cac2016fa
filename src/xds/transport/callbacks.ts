// The transport's callbacks (an extension point, docs/architecture.md), as
// go-control-plane's server Callbacks: the one seam through which features
// watch and gate the protocol. `admit` sees each node once its stream or fetch
// names it and may refuse it (ACLs); `sent` and `answered` report each response
// a stream writes and the client's ACK or NACK of it (the per-node history,
// staged rollouts). Callbacks run synchronously on the stream: they must be
// cheap; `sent`/`answered` must not throw (a throw is caught and logged).
// Nothing here changes what a stream sends: holds and pins happen in the
// provider layers the transport is given, never here.
import type { XdsNode } from './provider';
import type { Outgoing } from './rules/decide';
import type { StreamState } from './stream-state';
import type { TypeStates } from './type-states';

export interface SentEvent {
  stream: number;
  node: XdsNode;
  /** v3 type URL. */
  typeUrl: string;
  nonce: string;
  /** SotW: the set version (version_info). Delta: ''. */
  version: string;
  /** name → version sent; null for a name sent in removed_resources (Delta). SotW: the whole set. */
  resources: ReadonlyMap<string, string | null>;
  variant: 'sotw' | 'delta';
  /** ms since the epoch. */
  at: number;
}

export interface AnswerEvent {
  stream: number;
  node: XdsNode;
  typeUrl: string;
  /** The nonce of the response answered. */
  nonce: string;
  /** Present = NACK. */
  error: { code: number; message: string } | undefined;
  at: number;
}

export interface XdsCallbacks {
  /** A stream's first request (or a fetch) named this node; throw a HubError to refuse it. */
  admit?(node: XdsNode): void;
  sent?(event: SentEvent): void;
  answered?(event: AnswerEvent): void;
  /** A stream that had named its node ended (either side closed it). */
  closed?(event: { stream: number; node: XdsNode; at: number }): void;
}

/**
 * Several features' callbacks as one, called in the order given. A member is
 * present only when some feature has it, so a stream with no observer skips the
 * work of building events.
 */
export function combineCallbacks(list: readonly XdsCallbacks[]): XdsCallbacks {
  const admits = list.flatMap((c) => (c.admit ? [c.admit.bind(c)] : []));
  const sents = list.flatMap((c) => (c.sent ? [c.sent.bind(c)] : []));
  const answers = list.flatMap((c) => (c.answered ? [c.answered.bind(c)] : []));
  const closes = list.flatMap((c) => (c.closed ? [c.closed.bind(c)] : []));
  const out: XdsCallbacks = {};
  if (admits.length) out.admit = (node) => admits.forEach((f) => f(node));
  if (sents.length) out.sent = sents.length === 1 ? sents[0]! : (e) => sents.forEach((f) => f(e));
  if (answers.length) out.answered = answers.length === 1 ? answers[0]! : (e) => answers.forEach((f) => f(e));
  if (closes.length) out.closed = (e) => closes.forEach((f) => f(e));
  return out;
}

/** Called by the stream after it wrote `out` (state: the stream state that holds it as pending). Heartbeats are not reported. */
export function reportSent(observer: XdsCallbacks | undefined, state: StreamState, out: Outgoing, at: number): void {
  if (!observer?.sent || out.heartbeat || !state.node) return;
  const p = state.types.get(out.type.typeUrl)?.pending;
  if (!p || p.nonce !== out.nonce) return;
  // try/catch in place, not through `guard`: a closure per response per stream is GC work on the push path.
  try {
    observer.sent({
      stream: state.id,
      node: state.node,
      typeUrl: out.type.typeUrl,
      nonce: p.nonce,
      version: p.version,
      resources: p.sent,
      variant: state.variant,
      at,
    });
  } catch (err) {
    observerThrew(err);
  }
}

/**
 * Called by the stream after a request was settled: every pending (non-heartbeat)
 * response of `before` (the stream's types before the request) that `after` no
 * longer holds was answered by it — a NACK when the rules recorded one with
 * that nonce, else an ACK.
 */
export function reportAnswers(
  observer: XdsCallbacks | undefined,
  before: TypeStates,
  after: StreamState,
  at: number,
): void {
  if (!observer?.answered || !after.node || before === after.types) return;
  for (let i = 0; i < before.size; i++) {
    const st = before.stateAt(i);
    const p = st.pending;
    if (!p || p.heartbeat) continue;
    const typeUrl = before.urlAt(i);
    const now = after.types.get(typeUrl);
    if (now?.pending?.nonce === p.nonce) continue;
    const nack = now?.lastNack;
    const error =
      nack && nack.nonce === p.nonce && nack !== st.lastNack ? { code: nack.code, message: nack.message } : undefined;
    try {
      observer.answered({ stream: after.id, node: after.node, typeUrl, nonce: p.nonce, error, at });
    } catch (err) {
      observerThrew(err);
    }
  }
}

function guard(f: () => void): void {
  try {
    f();
  } catch (err) {
    observerThrew(err);
  }
}

/** An observer is a bystander: its failure must not end or stall the stream. */
function observerThrew(err: unknown): void {
  process.emitWarning(`xDS observer threw: ${(err as Error).message}`);
}

/** Called by a stream as it ends; a stream that never named its node is not reported. */
export function reportClosed(
  observer: XdsCallbacks | undefined,
  stream: number,
  node: XdsNode | undefined,
  at: number,
): void {
  if (!observer?.closed || !node) return;
  guard(() => observer.closed!({ stream, node, at }));
}
