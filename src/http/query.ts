// Query parameters that narrow or order a read, shared by the catalog, health
// and agent routes: ?filter (Consul's filter language, src/filter), repeatable
// ?node-meta=key:value, and ?near=<node>|_agent.
import { HubError } from '../errors';
import { compileFilter, type Fields, type Predicate } from '../filter/index';
import { many } from './shapes';

type Query = Record<string, unknown>;

/** ?filter=…: the compiled predicate, or undefined when absent or empty (Consul ignores an empty filter). A bad filter throws a 400. */
export function filterParam(query: Query, fields: Fields): Predicate | undefined {
  const text = filterText(query);
  return text === undefined ? undefined : compileFilter(text, fields);
}

/** The filter text itself, for view keys (validated with filterParam first). */
export function filterText(query: Query): string | undefined {
  const text = many(query.filter).at(-1);
  return text === undefined || text === '' ? undefined : text;
}

/** ?node-meta=key:value, repeatable; split at the first colon (a value may contain colons), as Consul's ParseMetaPair. */
export function nodeMetaParam(query: Query): Record<string, string> | undefined {
  const pairs = many(query['node-meta']);
  if (pairs.length === 0) return undefined;
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf(':');
    if (at < 0) out[pair] = '';
    else out[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return out;
}

export function metaMatches(
  meta: Readonly<Record<string, string>> | undefined,
  wanted: Readonly<Record<string, string>> | undefined,
): boolean {
  if (!wanted) return true;
  for (const [k, v] of Object.entries(wanted)) if (meta?.[k] !== v) return false;
  return true;
}

/** ?near=: the node to sort by (`_agent` is the hub's own node); undefined when absent. */
export function nearParam(query: Query, agentNode: string): string | undefined {
  const near = many(query.near).at(-1);
  if (near === undefined || near === '') return undefined;
  return near === '_agent' ? agentNode : near;
}

/**
 * Orders by distance from `near`. The hub keeps no network coordinates, so the
 * only distance it knows is zero — the node itself: its entries come first,
 * the rest keep their order (a stable sort, as Consul's for equal distances).
 */
export function sortNear<T>(items: readonly T[], near: string | undefined, nodeOf: (item: T) => string): readonly T[] {
  if (near === undefined) return items;
  const first = items.filter((i) => nodeOf(i) === near);
  if (first.length === 0 || first.length === items.length) return items;
  return [...first, ...items.filter((i) => nodeOf(i) !== near)];
}

/** Applies ?filter and ?node-meta to a list read from the catalog. */
export function narrow<T>(
  items: readonly T[],
  options: {
    filter?: Predicate;
    nodeMeta?: Record<string, string>;
    metaOf?: (item: T) => Readonly<Record<string, string>> | undefined;
    view?: (item: T) => unknown;
  },
): T[] {
  const { filter, nodeMeta, metaOf, view } = options;
  return items.filter(
    (item) => (!nodeMeta || metaMatches(metaOf?.(item), nodeMeta)) && (!filter || filter(view ? view(item) : item)),
  );
}

/** A path parameter Consul requires, refused with Consul's text ("Missing service name") when empty. */
export function required(value: string, field: string, text: string): string {
  if (value === '') throw new HubError('INVALID_ARGUMENT', text, { field });
  return value;
}
