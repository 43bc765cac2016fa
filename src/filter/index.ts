// Consul's `?filter=` expressions: parse (peggy grammar), check against the
// fields of the data they run on, and compile to a predicate. A bad filter is
// a HubError INVALID_ARGUMENT (400) with Consul's text: "Failed to create
// boolean expression evaluator: <why>".
import { HubError } from '../errors';
import { compileAst, type Predicate } from './compile';
import { FilterSyntaxError, parseFilter } from './parse';
import type { Fields } from './schema';

export type { Predicate } from './compile';
export { parseFilter } from './parse';
export * from './schema';

/** Compiled filters by (fields, expression): a thousand watchers of one filter parse it once. */
const cache = new WeakMap<Fields, Map<string, Predicate>>();
const CACHE_PER_SCHEMA = 512;

export function compileFilter(expression: string, fields: Fields): Predicate {
  let byText = cache.get(fields);
  if (!byText) cache.set(fields, (byText = new Map()));
  const hit = byText.get(expression);
  if (hit) return hit;
  let predicate: Predicate;
  try {
    predicate = compileAst(parseFilter(expression), fields);
  } catch (err) {
    if (err instanceof FilterSyntaxError) {
      throw new HubError('INVALID_ARGUMENT', `Failed to create boolean expression evaluator: ${err.message}`, {
        field: 'filter',
      });
    }
    throw err;
  }
  if (byText.size >= CACHE_PER_SCHEMA) byText.delete(byText.keys().next().value!);
  byText.set(expression, predicate);
  return predicate;
}
