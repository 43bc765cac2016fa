// The nodes an answer is given for: every connected node (by id, with the
// subscriptions of all its streams) and every node the history knows that is
// offline. Nodes that see the same sets through the same subscriptions are
// grouped, so a fleet of a thousand identical Envoys costs one diff.

import type { XdsNode } from '../xds/transport/provider';
import type { XdsServer } from '../xds/transport/server';
import type { Subscription } from '../xds/transport/stream-state';
import { type Coverage, SHOWN_TYPES, type TypeRest } from './diff';
import type { KnownNode } from './history';

export interface TargetNode {
  node: XdsNode;
  connected: boolean;
  coverage: Coverage;
}

export function targetNodes(xds: XdsServer | undefined, known: readonly KnownNode[]): TargetNode[] {
  const byId = new Map<string, TargetNode>();
  for (const s of xds?.streams() ?? []) {
    const node = s.node;
    if (!node || s.isClosed) continue;
    let t = byId.get(node.id);
    if (!t) byId.set(node.id, (t = { node, connected: true, coverage: {} }));
    for (const type of SHOWN_TYPES) {
      const st = s.types.get(type.typeUrl);
      if (!st) continue;
      const cov = t.coverage as Record<TypeRest, Subscription[]>;
      (cov[type.rest] ??= []).push(st.sub);
    }
  }
  for (const k of known) {
    if (byId.has(k.id)) continue;
    byId.set(k.id, {
      node: {
        id: k.id,
        cluster: k.cluster,
        userAgent: k.userAgent,
        clientFeatures: [],
        ...(k.configSource ? { configSource: k.configSource } : {}),
      },
      connected: false,
      coverage: undefined,
    });
  }
  return [...byId.values()].sort((a, b) => (a.node.id < b.node.id ? -1 : 1));
}

/** Gives each distinct object a small number (for grouping keys). */
export function identities(): (o: object | undefined) => number {
  const ids = new WeakMap<object, number>();
  let next = 1;
  return (o) => {
    if (!o) return 0;
    let id = ids.get(o);
    if (id === undefined) ids.set(o, (id = next++));
    return id;
  };
}
