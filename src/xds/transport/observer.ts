// The transport's one outward seam for tools that watch the protocol (the
// per-node history, staged rollouts): it reports each response a stream sends
// and the client's answer to it. The observer is called synchronously from the
// stream; it must be cheap and must not throw (a throw is caught and logged).
// Nothing here changes what a stream sends: holds and pins happen in the
// provider the transport is given, never here.
import type { XdsNode } from './provider';
import type { StreamState } from './stream-state';
import type { Outgoing } from './rules/decide';

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

export interface XdsObserver {
  sent?(event: SentEvent): void;
  answered?(event: AnswerEvent): void;
}

/** Called by the stream after it wrote `out` (state: the stream state that holds it as pending). Heartbeats are not reported. */
export function reportSent(observer: XdsObserver | undefined, state: StreamState, out: Outgoing, at: number): void {
  if (!observer?.sent || out.heartbeat || !state.node) return;
  const p = state.types.get(out.type.typeUrl)?.pending;
  if (!p || p.nonce !== out.nonce) return;
  guard(() => observer.sent!({ stream: state.id, node: state.node!, typeUrl: out.type.typeUrl, nonce: p.nonce, version: p.version, resources: p.sent, variant: state.variant, at }));
}

/**
 * Called by the stream after a request was settled: every pending (non-heartbeat)
 * response of `before` that `after` no longer holds was answered by it — a
 * NACK when the rules recorded one with that nonce, else an ACK.
 */
export function reportAnswers(observer: XdsObserver | undefined, before: StreamState, after: StreamState, at: number): void {
  if (!observer?.answered || !after.node) return;
  for (const [typeUrl, st] of before.types) {
    const p = st.pending;
    if (!p || p.heartbeat || after.types.get(typeUrl)?.pending?.nonce === p.nonce) continue;
    const nack = after.types.get(typeUrl)?.lastNack;
    const error = nack && nack.nonce === p.nonce && nack !== st.lastNack ? { code: nack.code, message: nack.message } : undefined;
    guard(() => observer.answered!({ stream: after.id, node: after.node!, typeUrl, nonce: p.nonce, error, at }));
  }
}

function guard(f: () => void): void {
  try {
    f();
  } catch (err) {
    // An observer is a bystander: its failure must not end or stall the stream.
    process.emitWarning(`xDS observer threw: ${(err as Error).message}`);
  }
}
